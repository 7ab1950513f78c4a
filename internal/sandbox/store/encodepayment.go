package store

import (
	"strconv"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// A payment beside its moves, written by hand as json.Marshal writes it:
// a checkout's new payment is encoded whole, and by reflection that was
// the largest part of its encoding. The members are written in the
// order of wire's struct fields with their omitempty rules; the meta,
// whose values are any JSON, is left to json.Marshal. The bytes are held
// to json.Marshal's by TestMarshalPaymentIsMarshal over payments that set
// every field, and race builds check every view written against it.

// appendPaymentHead appends the payment's opening brace and its members
// before the status: id to expires_at.
func appendPaymentHead(out []byte, p *wire.Payment) ([]byte, error) {
	out = appendKeyString(append(out, '{'), `"id":`, p.ID)
	out = appendDecimal(append(out, `,"amount":`...), p.Amount)
	out = appendKeyString(out, `,"currency":`, p.Currency)
	out = appendOptionalString(out, `,"description":`, p.Description)
	if b := p.Buyer; b != nil {
		out = appendBuyer(append(out, `,"buyer":`...), b)
	}
	if a := p.ShippingAddress; a != nil {
		out = appendShippingAddress(append(out, `,"shipping_address":`...), a)
	}
	var err error
	if o := p.Order; o != nil {
		out = appendKeyString(append(out, `,"order":`...), `{"reference_id":`, o.ReferenceID)
		if out, err = appendItems(out, `,"items":`, o.Items); err != nil {
			return nil, err
		}
		if out, err = appendTime(out, `,"updated_at":`, o.UpdatedAt); err != nil {
			return nil, err
		}
		out = appendOptionalDecimal(out, `,"tax_amount":`, o.TaxAmount)
		out = appendOptionalDecimal(out, `,"shipping_amount":`, o.ShippingAmount)
		out = append(appendOptionalDecimal(out, `,"discount_amount":`, o.DiscountAmount), '}')
	}
	if h := p.BuyerHistory; h != nil {
		if out, err = appendTime(append(out, `,"buyer_history":{`...), `"registered_since":`, h.RegisteredSince); err != nil {
			return nil, err
		}
		if h.RegisteredSince != nil {
			out = append(out, ',')
		}
		out = strconv.AppendInt(append(out, `"loyalty_level":`...), int64(h.LoyaltyLevel), 10)
		out = appendOptionalInt(out, `,"wishlist_count":`, h.WishlistCount)
		out = appendOptionalBool(out, `,"is_social_networks_connected":`, h.IsSocialNetworksConnected)
		out = appendOptionalBool(out, `,"is_phone_number_verified":`, h.IsPhoneNumberVerified)
		out = append(appendOptionalBool(out, `,"is_email_verified":`, h.IsEmailVerified), '}')
	}
	if len(p.OrderHistory) > 0 {
		out = append(out, `,"order_history":[`...)
		for i := range p.OrderHistory {
			if i > 0 {
				out = append(out, ',')
			}
			if out, err = appendOrderHistoryEntry(out, &p.OrderHistory[i]); err != nil {
				return nil, err
			}
		}
		out = append(out, ']')
	}
	if out, err = appendTime(out, `,"created_at":`, p.CreatedAt); err != nil {
		return nil, err
	}
	return appendTime(out, `,"expires_at":`, p.ExpiresAt)
}

// appendPaymentTail appends the payment's members after its refunds, the
// meta and the attachment, and its closing brace.
func appendPaymentTail(out []byte, p *wire.Payment) ([]byte, error) {
	if len(p.Meta) > 0 {
		var err error
		if out, err = appendMarshalled(append(out, `,"meta":`...), p.Meta); err != nil {
			return nil, err
		}
	}
	if a := p.Attachment; a != nil {
		out = appendKeyString(append(out, `,"attachment":`...), `{"body":`, a.Body)
		out = append(appendKeyString(out, `,"content_type":`, a.ContentType), '}')
	}
	return append(out, '}'), nil
}

func appendBuyer(out []byte, b *wire.Buyer) []byte {
	out = appendKeyString(append(out, '{'), `"name":`, b.Name)
	out = appendKeyString(out, `,"email":`, b.Email)
	out = appendKeyString(out, `,"phone":`, b.Phone)
	out = appendOptionalString(out, `,"dob":`, b.DOB)
	return append(out, '}')
}

func appendShippingAddress(out []byte, a *wire.ShippingAddress) []byte {
	out = appendKeyString(append(out, '{'), `"city":`, a.City)
	out = appendKeyString(out, `,"address":`, a.Address)
	return append(appendKeyString(out, `,"zip":`, a.Zip), '}')
}

func appendOrderHistoryEntry(out []byte, e *wire.OrderHistoryEntry) ([]byte, error) {
	out, err := appendTime(append(out, '{'), `"purchased_at":`, e.PurchasedAt)
	if err != nil {
		return nil, err
	}
	if e.PurchasedAt != nil {
		out = append(out, ',')
	}
	out = appendDecimal(append(out, `"amount":`...), e.Amount)
	out = appendOptionalString(out, `,"payment_method":`, e.PaymentMethod)
	out = appendOptionalString(out, `,"status":`, e.Status)
	if e.Buyer != nil {
		out = appendBuyer(append(out, `,"buyer":`...), e.Buyer)
	}
	if e.ShippingAddress != nil {
		out = appendShippingAddress(append(out, `,"shipping_address":`...), e.ShippingAddress)
	}
	if out, err = appendItems(out, `,"items":`, e.Items); err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// appendItems appends key and the items, omitted when there are none.
func appendItems(out []byte, key string, items []wire.OrderItem) ([]byte, error) {
	if len(items) == 0 {
		return out, nil
	}
	out = append(append(out, key...), '[')
	for i := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendItem(out, &items[i])
	}
	return append(out, ']'), nil
}

func appendItem(out []byte, it *wire.OrderItem) []byte {
	out = appendKeyString(append(out, '{'), `"title":`, it.Title)
	out = strconv.AppendInt(append(out, `,"quantity":`...), int64(it.Quantity), 10)
	out = appendDecimal(append(out, `,"unit_price":`...), it.UnitPrice)
	out = appendOptionalString(out, `,"category":`, it.Category)
	out = appendOptionalString(out, `,"reference_id":`, it.ReferenceID)
	out = appendOptionalString(out, `,"description":`, it.Description)
	out = appendOptionalDecimal(out, `,"discount_amount":`, it.DiscountAmount)
	out = appendOptionalString(out, `,"image_url":`, it.ImageURL)
	out = appendOptionalString(out, `,"product_url":`, it.ProductURL)
	out = appendOptionalString(out, `,"gender":`, it.Gender)
	out = appendOptionalString(out, `,"color":`, it.Color)
	out = appendOptionalString(out, `,"product_material":`, it.ProductMaterial)
	out = appendOptionalString(out, `,"size_type":`, it.SizeType)
	out = appendOptionalString(out, `,"size":`, it.Size)
	out = appendOptionalString(out, `,"brand":`, it.Brand)
	out = appendOptionalBool(out, `,"is_refundable":`, it.IsRefundable)
	out = appendOptionalString(out, `,"barcode":`, it.Barcode)
	out = appendOptionalString(out, `,"ppn":`, it.PPN)
	out = appendOptionalString(out, `,"seller":`, it.Seller)
	out = appendOptionalInt(out, `,"ordered":`, it.Ordered)
	out = appendOptionalInt(out, `,"captured":`, it.Captured)
	out = appendOptionalInt(out, `,"shipped":`, it.Shipped)
	return append(appendOptionalInt(out, `,"refunded":`, it.Refunded), '}')
}

// appendOptionalString appends key and s, omitted when s is empty.
func appendOptionalString(out []byte, key, s string) []byte {
	if s == "" {
		return out
	}
	return appendKeyString(out, key, s)
}

func appendOptionalInt(out []byte, key string, n *int) []byte {
	if n == nil {
		return out
	}
	return strconv.AppendInt(append(out, key...), int64(*n), 10)
}

func appendOptionalBool(out []byte, key string, b *bool) []byte {
	if b == nil {
		return out
	}
	return strconv.AppendBool(append(out, key...), *b)
}
