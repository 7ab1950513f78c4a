package wire

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Payment statuses of the service.
const (
	StatusCreated    = "CREATED"
	StatusAuthorized = "AUTHORIZED"
	StatusClosed     = "CLOSED"
	StatusRejected   = "REJECTED"
	StatusExpired    = "EXPIRED"
)

// raw keeps the bytes a resource was decoded from, so that `-o json` prints
// what the service sent, fields this client does not model included.
type raw struct{ bytes json.RawMessage }

// Raw is the JSON the resource was decoded from; nil for values built here.
func (r raw) Raw() json.RawMessage { return r.bytes }

// KeepRaw replaces the bytes Raw answers, for a reader that rewrites what
// it decoded (the client masks webhook header values).
func (r *raw) KeepRaw(b []byte) { r.bytes = append(json.RawMessage(nil), b...) }

// Payment is the service's payment, with captures and refunds.
type Payment struct {
	raw             `json:"-"`
	ID              string              `json:"id"`
	Amount          decimal.Decimal     `json:"amount"`
	Currency        string              `json:"currency"`
	Description     string              `json:"description,omitempty"`
	Buyer           *Buyer              `json:"buyer,omitempty"`
	ShippingAddress *ShippingAddress    `json:"shipping_address,omitempty"`
	Order           *Order              `json:"order,omitempty"`
	BuyerHistory    *BuyerHistory       `json:"buyer_history,omitempty"`
	OrderHistory    []OrderHistoryEntry `json:"order_history,omitempty"`
	CreatedAt       *time.Time          `json:"created_at,omitempty"`
	ExpiresAt       *time.Time          `json:"expires_at,omitempty"`
	Status          string              `json:"status,omitempty"`
	IsTest          bool                `json:"is_test"`
	Captures        []Capture           `json:"captures"`
	Refunds         []Refund            `json:"refunds"`
	Meta            map[string]any      `json:"meta,omitempty"`
	Attachment      *Attachment         `json:"attachment,omitempty"`
}

func (p *Payment) UnmarshalJSON(b []byte) error {
	type plain Payment
	if err := json.Unmarshal(b, (*plain)(p)); err != nil {
		return err
	}
	p.KeepRaw(b)
	return nil
}

// Buyer of a payment. DOB is a YYYY-MM-DD date in requests; session reads
// answer a midnight-UTC datetime, so it stays a string.
type Buyer struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone"`
	DOB   string `json:"dob,omitempty"`
}

type ShippingAddress struct {
	City    string `json:"city"`
	Address string `json:"address"`
	Zip     string `json:"zip"`
}

type Order struct {
	ReferenceID    string           `json:"reference_id"`
	Items          []OrderItem      `json:"items,omitempty"`
	UpdatedAt      *time.Time       `json:"updated_at,omitempty"`
	TaxAmount      *decimal.Decimal `json:"tax_amount,omitempty"`
	ShippingAmount *decimal.Decimal `json:"shipping_amount,omitempty"`
	DiscountAmount *decimal.Decimal `json:"discount_amount,omitempty"`
}

type OrderItem struct {
	Title           string           `json:"title"`
	Quantity        int              `json:"quantity"`
	UnitPrice       decimal.Decimal  `json:"unit_price"`
	Category        string           `json:"category,omitempty"`
	ReferenceID     string           `json:"reference_id,omitempty"`
	Description     string           `json:"description,omitempty"`
	DiscountAmount  *decimal.Decimal `json:"discount_amount,omitempty"`
	ImageURL        string           `json:"image_url,omitempty"`
	ProductURL      string           `json:"product_url,omitempty"`
	Gender          string           `json:"gender,omitempty"`
	Color           string           `json:"color,omitempty"`
	ProductMaterial string           `json:"product_material,omitempty"`
	SizeType        string           `json:"size_type,omitempty"`
	Size            string           `json:"size,omitempty"`
	Brand           string           `json:"brand,omitempty"`
	IsRefundable    *bool            `json:"is_refundable,omitempty"`
	Barcode         string           `json:"barcode,omitempty"`
	PPN             string           `json:"ppn,omitempty"`
	Seller          string           `json:"seller,omitempty"`
	// Only on order-history items.
	Ordered  *int `json:"ordered,omitempty"`
	Captured *int `json:"captured,omitempty"`
	Shipped  *int `json:"shipped,omitempty"`
	Refunded *int `json:"refunded,omitempty"`
}

type BuyerHistory struct {
	RegisteredSince           *time.Time `json:"registered_since,omitempty"`
	LoyaltyLevel              int        `json:"loyalty_level"`
	WishlistCount             *int       `json:"wishlist_count,omitempty"`
	IsSocialNetworksConnected *bool      `json:"is_social_networks_connected,omitempty"`
	IsPhoneNumberVerified     *bool      `json:"is_phone_number_verified,omitempty"`
	IsEmailVerified           *bool      `json:"is_email_verified,omitempty"`
}

type OrderHistoryEntry struct {
	PurchasedAt     *time.Time       `json:"purchased_at,omitempty"`
	Amount          decimal.Decimal  `json:"amount"`
	PaymentMethod   string           `json:"payment_method,omitempty"`
	Status          string           `json:"status,omitempty"`
	Buyer           *Buyer           `json:"buyer,omitempty"`
	ShippingAddress *ShippingAddress `json:"shipping_address,omitempty"`
	Items           []OrderItem      `json:"items,omitempty"`
}

type Capture struct {
	ID             string           `json:"id"`
	Amount         decimal.Decimal  `json:"amount"`
	ReferenceID    string           `json:"reference_id"`
	CreatedAt      *time.Time       `json:"created_at,omitempty"`
	TaxAmount      *decimal.Decimal `json:"tax_amount,omitempty"`
	ShippingAmount *decimal.Decimal `json:"shipping_amount,omitempty"`
	DiscountAmount *decimal.Decimal `json:"discount_amount,omitempty"`
	Items          []OrderItem      `json:"items,omitempty"`
}

type Refund struct {
	ID          string          `json:"id"`
	Amount      decimal.Decimal `json:"amount"`
	ReferenceID string          `json:"reference_id"`
	CreatedAt   *time.Time      `json:"created_at,omitempty"`
	Reason      string          `json:"reason,omitempty"`
	Items       []OrderItem     `json:"items,omitempty"`
}

// Attachment of a payment: serialized JSON under a vendor media type.
type Attachment struct {
	Body        string `json:"body"`
	ContentType string `json:"content_type"`
}

// Captured is the sum of the payment's captures.
func (p *Payment) Captured() decimal.Decimal {
	return sumAmounts(p.Captures, func(c *Capture) decimal.Decimal { return c.Amount })
}

// Refunded is the sum of the payment's refunds.
func (p *Payment) Refunded() decimal.Decimal {
	return sumAmounts(p.Refunds, func(r *Refund) decimal.Decimal { return r.Amount })
}

// sumAmounts answers decimal.Zero plus each amount in turn, with the
// exponent that sum has. Amounts of one exponent of at most 0 (a
// currency's places, as every amount is parsed), each under 10^18, are
// added as int64s: a payment moved a hundred times is summed on every
// move, and each decimal addition allocates. Any other list, or a total
// that would overflow, is added by decimal.
func sumAmounts[M any](moves []M, amount func(*M) decimal.Decimal) decimal.Decimal {
	if len(moves) == 0 {
		return decimal.Zero
	}
	exp := amount(&moves[0]).Exponent()
	var total int64
	fast := exp <= 0
	for i := 0; fast && i < len(moves); i++ {
		d := amount(&moves[i])
		if d.Exponent() != exp || d.NumDigits() > 18 {
			fast = false
			break
		}
		c := d.CoefficientInt64()
		if (c > 0 && total > math.MaxInt64-c) || (c < 0 && total < math.MinInt64-c) {
			fast = false
			break
		}
		total += c
	}
	if fast {
		return decimal.New(total, exp)
	}
	sum := decimal.Zero
	for i := range moves {
		sum = sum.Add(amount(&moves[i]))
	}
	return sum
}

// Capturable is what a capture may still take: the uncaptured remainder of
// an authorized payment, nothing in any other status.
func (p *Payment) Capturable() decimal.Decimal {
	if p.Status != StatusAuthorized {
		return decimal.Zero
	}
	if rest := p.Amount.Sub(p.Captured()); rest.IsPositive() {
		return rest
	}
	return decimal.Zero
}

// Refundable is what a refund may still return: captured less refunded, on
// a closed payment.
func (p *Payment) Refundable() decimal.Decimal {
	if p.Status != StatusClosed {
		return decimal.Zero
	}
	if rest := p.Captured().Sub(p.Refunded()); rest.IsPositive() {
		return rest
	}
	return decimal.Zero
}

// AuthorizationExpired reports whether p is AUTHORIZED but its
// authorization expired (expires_at has passed at now): nothing can be
// captured, and the service will expire it.
func (p *Payment) AuthorizationExpired(now time.Time) bool {
	return p.Status == StatusAuthorized && p.ExpiresAt != nil && !now.Before(*p.ExpiresAt)
}

// CaptureByReference finds the capture made with reference_id ref.
func (p *Payment) CaptureByReference(ref string) *Capture {
	for i := range p.Captures {
		if p.Captures[i].ReferenceID == ref {
			return &p.Captures[i]
		}
	}
	return nil
}

// RefundByReference finds the refund made with reference_id ref.
func (p *Payment) RefundByReference(ref string) *Refund {
	for i := range p.Refunds {
		if p.Refunds[i].ReferenceID == ref {
			return &p.Refunds[i]
		}
	}
	return nil
}

// Pagination of the payments list.
type Pagination struct {
	Limit      int `json:"limit"`
	Offset     int `json:"offset"`
	TotalCount int `json:"total_count"`
}

// PaymentList is one page of GET /api/v2/payments.
type PaymentList struct {
	raw        `json:"-"`
	Payments   []Payment  `json:"payments"`
	Pagination Pagination `json:"pagination"`
}

func (l *PaymentList) UnmarshalJSON(b []byte) error {
	type plain PaymentList
	if err := json.Unmarshal(b, (*plain)(l)); err != nil {
		return err
	}
	l.KeepRaw(b)
	return nil
}

// CheckoutRequest is the body of POST /api/v2/checkout.
type CheckoutRequest struct {
	Payment      Payment       `json:"payment"`
	Lang         string        `json:"lang"`
	MerchantCode string        `json:"merchant_code"`
	MerchantURLs *MerchantURLs `json:"merchant_urls,omitempty"`
	Token        *string       `json:"token"`
}

type MerchantURLs struct {
	Success string `json:"success,omitempty"`
	Cancel  string `json:"cancel,omitempty"`
	Failure string `json:"failure,omitempty"`
}

// Session statuses.
const (
	SessionCreated  = "created"
	SessionRejected = "rejected"
)

// CheckoutSession is the answer of checkout create and get.
type CheckoutSession struct {
	raw           `json:"-"`
	ID            string        `json:"id"`
	Status        string        `json:"status"`
	Token         *string       `json:"token"`
	Payment       Payment       `json:"payment"`
	MerchantURLs  *MerchantURLs `json:"merchant_urls,omitempty"`
	Configuration Configuration `json:"configuration"`
	Lang          string        `json:"lang,omitempty"`
	Merchant      *Merchant     `json:"merchant,omitempty"`
	MerchantCode  string        `json:"merchant_code,omitempty"`
}

func (s *CheckoutSession) UnmarshalJSON(b []byte) error {
	type plain CheckoutSession
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	s.KeepRaw(b)
	return nil
}

// WebURL is the hosted checkout URL of the session's installments product,
// empty when pre-scoring rejected it.
func (s *CheckoutSession) WebURL() string {
	for _, p := range s.Configuration.AvailableProducts.Installments {
		if p.WebURL != "" {
			return p.WebURL
		}
	}
	return ""
}

// QRCodeURL is the hpp_link_qr address of the session.
func (s *CheckoutSession) QRCodeURL() string {
	for _, p := range s.Configuration.AvailableProducts.Installments {
		if p.QRCode != "" {
			return p.QRCode
		}
	}
	return ""
}

// RejectionReason of a rejected session, empty otherwise.
func (s *CheckoutSession) RejectionReason() string {
	if r := s.Configuration.Products.Installments.RejectionReason; r != nil {
		return *r
	}
	return ""
}

type Configuration struct {
	AvailableProducts AvailableProducts `json:"available_products"`
	Products          Products          `json:"products"`
	ExpiresAt         *time.Time        `json:"expires_at,omitempty"`
}

type AvailableProducts struct {
	Installments []ProductLink `json:"installments"`
}

type ProductLink struct {
	WebURL string `json:"web_url"`
	QRCode string `json:"qr_code"`
}

type Products struct {
	Installments ProductState `json:"installments"`
}

type ProductState struct {
	Type            string  `json:"type"`
	IsAvailable     bool    `json:"is_available"`
	RejectionReason *string `json:"rejection_reason"`
}

type Merchant struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Logo    string `json:"logo"`
}

// CaptureRequest is the body of POST /api/v2/payments/{id}/captures.
type CaptureRequest struct {
	Amount         decimal.Decimal  `json:"amount"`
	ReferenceID    string           `json:"reference_id,omitempty"`
	TaxAmount      *decimal.Decimal `json:"tax_amount,omitempty"`
	ShippingAmount *decimal.Decimal `json:"shipping_amount,omitempty"`
	DiscountAmount *decimal.Decimal `json:"discount_amount,omitempty"`
	Items          []OrderItem      `json:"items,omitempty"`
}

// RefundRequest is the body of POST /api/v2/payments/{id}/refunds.
type RefundRequest struct {
	Amount      decimal.Decimal `json:"amount"`
	ReferenceID string          `json:"reference_id,omitempty"`
	Reason      string          `json:"reason,omitempty"`
	Items       []OrderItem     `json:"items,omitempty"`
}

// UpdatePaymentRequest is the body of PUT /api/v2/payments/{id}.
type UpdatePaymentRequest struct {
	Order struct {
		ReferenceID string `json:"reference_id"`
	} `json:"order"`
}

// Webhook is a payment webhook registration.
type Webhook struct {
	raw    `json:"-"`
	ID     string         `json:"id"`
	URL    string         `json:"url"`
	IsTest bool           `json:"is_test"`
	Header *WebhookHeader `json:"header,omitempty"`
}

func (w *Webhook) UnmarshalJSON(b []byte) error {
	type plain Webhook
	if err := json.Unmarshal(b, (*plain)(w)); err != nil {
		return err
	}
	w.KeepRaw(b)
	return nil
}

// WebhookHeader is the static header sent with every notification.
type WebhookHeader struct {
	Title string `json:"title"`
	Value string `json:"value"`
}

// WebhookRequest is the body of webhook create and update.
type WebhookRequest struct {
	URL    string         `json:"url"`
	IsTest *bool          `json:"is_test,omitempty"`
	Header *WebhookHeader `json:"header,omitempty"`
}

// DisputeWebhook is a dispute webhook registration; Header.Value is masked.
type DisputeWebhook struct {
	raw    `json:"-"`
	ID     string         `json:"id"`
	URL    string         `json:"url"`
	Header *WebhookHeader `json:"header"`
}

func (w *DisputeWebhook) UnmarshalJSON(b []byte) error {
	type plain DisputeWebhook
	if err := json.Unmarshal(b, (*plain)(w)); err != nil {
		return err
	}
	w.KeepRaw(b)
	return nil
}

// DisputeWebhookRequest is the body of dispute webhook create and replace.
type DisputeWebhookRequest struct {
	URL    string         `json:"url"`
	Header *WebhookHeader `json:"header,omitempty"`
}

// Dispute statuses and reasons the service is known to use.
var (
	DisputeStatuses = []string{"new", "in_progress", "evidence_merchant", "evidence_customer", "declined", "cancelled", "refunded"}
	DisputeReasons  = []string{"unreceived_refund", "identity_theft", "product_issue", "not_delivered"}
	// ChallengeReasons; ChallengeReasonAmount needs an amount.
	ChallengeReasons = []string{
		"merchant_reason_other",
		"merchant_reason_order_on_its_way",
		"merchant_reason_order_has_been_already_delivered",
		ChallengeReasonAmount,
		"merchant_reason_problem_with_delivery",
	}
)

const ChallengeReasonAmount = "merchant_reason_order_amount_should_be_different"

// Limits of the dispute operations.
const (
	MaxApproveIDs          = 20
	MaxEvidenceAttachments = 5
	MaxAttachmentBytes     = 5 << 20
	MaxDisputeWebhooks     = 4
	MaxHeaderTitle         = 128
	MaxHeaderValue         = 1024
	MaxPageLimit           = 20
)

type Dispute struct {
	raw         `json:"-"`
	ID          string           `json:"id"`
	Attachments []string         `json:"attachments"`
	PaymentID   string           `json:"payment_id"`
	Amount      decimal.Decimal  `json:"amount"`
	Currency    string           `json:"currency"`
	CreatedAt   *time.Time       `json:"created_at,omitempty"`
	ExpiredAt   *time.Time       `json:"expired_at,omitempty"`
	Status      string           `json:"status"`
	Reason      string           `json:"reason"`
	DaysLeft    int              `json:"days_left"`
	Items       []DisputeItem    `json:"items"`
	OrderNumber string           `json:"order_number"`
	Comment     string           `json:"comment"`
	History     []DisputeHistory `json:"history,omitempty"`
}

func (d *Dispute) UnmarshalJSON(b []byte) error {
	type plain Dispute
	if err := json.Unmarshal(b, (*plain)(d)); err != nil {
		return err
	}
	d.KeepRaw(b)
	return nil
}

type DisputeItem struct {
	ReferenceID string          `json:"reference_id"`
	Title       string          `json:"title"`
	UnitPrice   decimal.Decimal `json:"unit_price"`
}

type DisputeHistory struct {
	Attachments []string   `json:"attachments"`
	CreatedAt   *time.Time `json:"created_at,omitempty"`
	CreatedBy   string     `json:"created_by"`
	Content     string     `json:"content"`
	Source      string     `json:"source"`
	EventType   string     `json:"event_type"`
	Note        string     `json:"note,omitempty"`
}

// DisputeList is one page of GET /api/v1/disputes.
type DisputeList struct {
	raw           `json:"-"`
	Disputes      []Dispute `json:"disputes"`
	NextPageToken string    `json:"next_page_token"`
}

func (l *DisputeList) UnmarshalJSON(b []byte) error {
	type plain DisputeList
	if err := json.Unmarshal(b, (*plain)(l)); err != nil {
		return err
	}
	l.KeepRaw(b)
	return nil
}

// EvidenceRequest is the body of provide-evidence.
type EvidenceRequest struct {
	Content       string   `json:"content"`
	AttachmentIDs []string `json:"attachment_ids,omitempty"`
}

// Evidence is the answer of provide-evidence.
type Evidence struct {
	raw           `json:"-"`
	ID            string     `json:"id"`
	DisputeID     string     `json:"dispute_id"`
	Content       string     `json:"content"`
	CreatedBy     string     `json:"created_by"`
	CreatedAt     *time.Time `json:"created_at,omitempty"`
	AttachmentIDs []string   `json:"attachment_ids"`
}

func (e *Evidence) UnmarshalJSON(b []byte) error {
	type plain Evidence
	if err := json.Unmarshal(b, (*plain)(e)); err != nil {
		return err
	}
	e.KeepRaw(b)
	return nil
}

type ApproveRequest struct {
	DisputeIDs []string `json:"dispute_ids"`
}

type ChallengeRequest struct {
	DisputeID     string           `json:"dispute_id"`
	Description   string           `json:"description"`
	Reason        string           `json:"reason"`
	Amount        *decimal.Decimal `json:"amount,omitempty"`
	AttachmentIDs []string         `json:"attachment_ids,omitempty"`
}

// AttachmentUpload is the answer of the attachment upload.
type AttachmentUpload struct {
	ID string `json:"id"`
}

// PaymentNotification is the payload the service posts to payment webhooks.
type PaymentNotification struct {
	ID        string     `json:"id"`
	CreatedAt *time.Time `json:"created_at,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	ClosedAt  *time.Time `json:"closed_at,omitempty"`
	Status    string     `json:"status"`
	IsTest    bool       `json:"is_test"`
	IsExpired bool       `json:"is_expired"`
	Amount    string     `json:"amount"`
	Currency  string     `json:"currency"`
	Order     struct {
		ReferenceID string `json:"reference_id"`
	} `json:"order"`
	Captures []Capture      `json:"captures"`
	Refunds  []Refund       `json:"refunds"`
	Meta     map[string]any `json:"meta"`
	Token    *string        `json:"token"`
}

// DisputeNotification is the payload the service posts to dispute webhooks.
type DisputeNotification struct {
	Status    string     `json:"status"`
	DisputeID string     `json:"dispute_id"`
	PaymentID string     `json:"payment_id"`
	Amount    string     `json:"amount"`
	Currency  string     `json:"currency"`
	CreatedAt *time.Time `json:"created_at,omitempty"`
}

// allowedAttachmentTypes are the formats the service takes, as
// http.DetectContentType names them.
var allowedAttachmentTypes = []string{"image/png", "image/jpeg", "application/pdf"}

// AttachmentType names the format of a file from its first bytes (up to
// 512 are looked at) and tells whether the service takes it. The content
// decides, not the file name: a renamed text file is still refused.
func AttachmentType(head []byte) (kind string, ok bool) {
	kind, _, _ = strings.Cut(http.DetectContentType(head), ";")
	return kind, slices.Contains(allowedAttachmentTypes, kind)
}

// Active reports whether the dispute is still open: not declined,
// cancelled or refunded. While one is, refunds of its payment are
// refused (409 "payment is disputed").
func (d *Dispute) Active() bool {
	switch strings.ToLower(d.Status) {
	case "declined", "cancelled", "refunded":
		return false
	}
	return true
}
