package plugins

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// magentoSession is the session body the Magento 2 module sends: the
// browser part gives lang, merchant_code, merchant_urls, the buyer (empty
// phone or email when the store has none) and an address built from the
// billing address (street lines joined, zip null without a postcode); the
// server part replaces amount, currency, description and order (amounts
// formatted with two places; items priced by PHP arithmetic on those
// strings, so unit_price reaches the JSON encoder as a number and quantity
// as a float; no category; an extra tax_amount), adds order_history (items
// with counts and no quantity or category, street lines joined with a
// newline, no zip), buyer_history (registered_since null for a guest) and
// meta.
//
// asDocumented writes the three item fields the interface settles the way
// it settles them: unit_price a string, quantity an integer, a category.
func magentoSession(ref string, asDocumented bool) []byte {
	item := `{"title":"Yoga mat","description":null,"quantity":1.0,"unit_price":115.5,"tax_amount":"5.50","reference_id":"24-WG088","product_url":"https://m2.shop.example/yoga-mat.html"}`
	if asDocumented {
		item = `{"title":"Yoga mat","description":null,"quantity":1,"unit_price":"115.50","tax_amount":"5.50","reference_id":"24-WG088","product_url":"https://m2.shop.example/yoga-mat.html","category":"Fitness"}`
	}
	body := `{
  "lang": "en",
  "merchant_code": "` + merchant + `",
  "merchant_urls": {"success": "https://m2.shop.example/tabby/result/success", "cancel": "https://m2.shop.example/tabby/result/cancel", "failure": "https://m2.shop.example/tabby/result/failure"},
  "payment": {
    "buyer": {"phone": "+971500000001", "email": "otp.success@tabby.ai", "name": "Omar Saleh"},
    "shipping_address": {"city": "Dubai", "address": "Building 4, Al Barsha", "zip": null},
    "amount": "115.50",
    "currency": "AED",
    "description": "` + ref + `",
    "order": {"tax_amount": "5.50", "shipping_amount": "0.00", "discount_amount": "0.00", "reference_id": "` + ref + `", "items": [` + item + `]},
    "order_history": [{
      "amount": "42.00",
      "buyer": {"name": "Omar Saleh", "email": "otp.success@tabby.ai", "phone": null},
      "items": [{"ordered": 1, "captured": 1, "refunded": 0, "shipped": 1, "title": "Water bottle", "unit_price": "42.00", "tax_amount": "2.00"}],
      "payment_method": "checkmo",
      "purchased_at": "2025-06-01T09:00:00+00:00",
      "shipping_address": {"address": "Building 4\nAl Barsha", "city": "Dubai"},
      "status": "complete"
    }],
    "buyer_history": {"registered_since": null, "loyalty_level": 1},
    "meta": {"order_id": null, "customer": null}
  }
}`
	return []byte(body)
}

func TestMagento(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		hdr := map[string]string{"X-Merchant-Code": merchant}

		// Webhooks: list; register {url, is_test}; a registered one is
		// re-sent with PUT {url, is_test}.
		tg.call("GET", "/api/v1/webhooks", nil, hdr).ok(t, "list webhooks")
		created := tg.call("POST", "/api/v1/webhooks", map[string]any{"url": tg.receiver, "is_test": true}, hdr).ok(t, "register webhook").body
		hookID, _ := created["id"].(string)
		if hookID == "" || created["url"] != tg.receiver || created["is_test"] != true {
			t.Fatalf("registered webhook: %v", created)
		}
		tg.call("PUT", "/api/v1/webhooks/"+hookID, map[string]any{"url": tg.receiver, "is_test": true}, hdr).ok(t, "update webhook")

		// The session exactly as the module sends it: its items carry a
		// number where the interface shows a string, a float quantity and
		// no category. The interface settles all three, so both the
		// sandbox and the client refuse it.
		body := magentoSession("000000101", false)
		a := tg.call("POST", "/api/v2/checkout", body, nil)
		if a.status != 400 || !strings.Contains(string(a.raw), "could not decode request") {
			t.Fatalf("session as sent: %d %s", a.status, a.raw)
		}
		clientAgrees(t, body, false,
			"$.payment.order.items[0].unit_price", "$.payment.order.items[0].quantity", "$.payment.order.items[0].category")

		// With those three written as the interface writes them, the rest
		// of the module's shape passes: zip null, a guest's
		// registered_since null, history items with counts and no quantity
		// or category, a newline in a history address, a null phone, extra
		// fields (an item's tax_amount, meta's nulls).
		body = magentoSession("000000101", true)
		id := createdSession(t, tg, body)

		// The notification: id, order.reference_id and status, compared
		// in capitals.
		note := tg.approve(id)
		if note["id"] != id || at(note, "order.reference_id") != "000000101" ||
			strings.ToUpper(str(t, note, "status")) != "AUTHORIZED" {
			t.Fatalf("notification: %v", note)
		}
		// Authorising the order reads the payment back.
		p := tg.call("GET", "/api/v2/payments/"+id, nil, nil).ok(t, "read payment").body
		if p["status"] != "AUTHORIZED" || !amountIs(p["amount"], "115.50") || at(p, "order.reference_id") != "000000101" {
			t.Fatalf("payment as read: %v %v %v", p["status"], p["amount"], at(p, "order.reference_id"))
		}
		// The order's increment id replaces the quote id.
		p = tg.call("PUT", "/api/v2/payments/"+id, map[string]any{"order": map[string]any{"reference_id": "100000101"}}, nil).ok(t, "update reference").body
		if at(p, "order.reference_id") != "100000101" {
			t.Fatalf("reference after PUT: %v", at(p, "order.reference_id"))
		}

		// Invoice capture: amounts with two places, a null created_at, no
		// reference_id, items without a category.
		capture := []byte(`{"amount":"115.50","tax_amount":"5.50","shipping_amount":"0.00","created_at":null,
  "items":[{"title":"Yoga mat","description":"Yoga mat","quantity":1,"unit_price":"115.50","reference_id":"2048|24-WG088"}]}`)
		p = tg.call("POST", "/api/v2/payments/"+id+"/captures", capture, nil).ok(t, "capture").body
		caps, _ := p["captures"].([]any)
		if len(caps) != 1 || str(t, caps[0], "id") == "" || !amountIs(at(caps[0], "amount"), "115.50") {
			t.Fatalf("captures as read: %v", p["captures"])
		}
		if p["status"] != "CLOSED" {
			t.Fatalf("status after the invoice capture: %v", p["status"])
		}
		captureID := str(t, caps[0], "id")

		// Credit memo refund: the capture's id as an extra field, amounts
		// as PHP's string of a rounded float ("20"), and each item's unit
		// price read from a field a credit memo does not have, so "0".
		refund, _ := json.Marshal(map[string]any{"capture_id": captureID, "amount": "20",
			"items": []any{map[string]any{"title": "Yoga mat", "description": "Yoga mat", "quantity": 1, "unit_price": "0", "reference_id": "2048|24-WG088"}}})
		p = tg.call("POST", "/api/v2/payments/"+id+"/refunds", refund, nil).ok(t, "refund").body
		refs, _ := p["refunds"].([]any)
		if len(refs) != 1 || str(t, refs[0], "id") == "" || !amountIs(at(refs[0], "amount"), "20") {
			t.Fatalf("refunds as read: %v", p["refunds"])
		}

		// Cancel: close with no body.
		s := tg.call("POST", "/api/v2/checkout", magentoSession("000000102", true), nil).ok(t, "second session").body
		id2 := str(t, s, "payment.id")
		tg.approve(id2)
		p = tg.call("POST", "/api/v2/payments/"+id2+"/close", nil, nil).ok(t, "close").body
		if p["status"] != "CLOSED" {
			t.Fatalf("status after close: %v", p["status"])
		}
	})
}

// createdSession sends a session the client takes as it is, and answers
// the id of the payment the target created with an installments page to
// send the customer to.
func createdSession(t *testing.T, tg *target, body []byte) string {
	t.Helper()
	clientAgrees(t, body, true)
	s := tg.call("POST", "/api/v2/checkout", body, nil).ok(t, "session").body
	if s["status"] != "created" {
		t.Fatalf("session status %v", s["status"])
	}
	id := str(t, s, "payment.id")
	if web := str(t, s, "configuration.available_products.installments.0.web_url"); web == "" {
		t.Fatal("no web_url in available_products")
	}
	return id
}

// TestAndroidSDK: the Android SDK's payment model has no zip, no
// buyer_history and BigDecimal amounts that its JSON library writes as
// numbers. The interface settles all three, so the sandbox refuses the
// shape and the client names each problem before sending.
func TestAndroidSDK(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		body := []byte(`{"lang":"en","merchant_code":"` + merchant + `","payment":{
  "amount": 340.0, "currency": "AED", "description": "Order 77",
  "buyer": {"email": "otp.success@tabby.ai", "phone": "+971500000001", "name": "Sara"},
  "order": {"reference_id": "77", "items": [{"reference_id": "sku-1", "title": "Lamp", "description": "Lamp", "product_url": "https://shop.example/lamp", "unit_price": 340.0, "quantity": 1, "category": "Home"}]},
  "shipping_address": {"address": "Marina 1", "city": "Dubai"}}}`)
		a := tg.call("POST", "/api/v2/checkout", body, nil)
		if a.status != 400 {
			t.Fatalf("SDK shape: %d %s", a.status, a.raw)
		}
		clientAgrees(t, body, false, "$.payment.amount", "$.payment.order.items[0].unit_price",
			"$.payment.shipping_address.zip", "$.payment.buyer_history")
	})
}

// magentoOrderSession is the session the Magento 2 module's payment method
// (Model/Method/Checkout.php, the redirect after the order is placed)
// sends: lang, merchant_code, merchant_urls under tabby/result/, and a
// payment of amounts as PHP's string of a rounded float ("115.5", "0"), no
// description, a buyer whose phone is "" without an address, a shipping
// address of city, street lines joined with a newline and zip ("" when the
// order has neither), items with title, description (null when the product
// has none), quantity (the ordered quantity times one: a PHP float),
// unit_price and tax_amount strings, the SKU as reference_id, image and
// product URLs and the name of the product's first category, "" for a
// product in none; meta (the plugin's platform and version), buyer_history
// (registered_since null for a guest) and order_history.
//
// integerQuantity writes the quantity as the interface writes it.
func magentoOrderSession(ref string, integerQuantity bool) []byte {
	quantity := "1.0"
	if integerQuantity {
		quantity = "1"
	}
	return []byte(`{
  "lang": "en",
  "merchant_code": "` + merchant + `",
  "merchant_urls": {"success": "https://m2.shop.example/tabby/result/success/", "cancel": "https://m2.shop.example/tabby/result/cancel/", "failure": "https://m2.shop.example/tabby/result/failure/"},
  "payment": {
    "amount": "115.5",
    "currency": "AED",
    "buyer": {"phone": "", "email": "otp.success@tabby.ai", "name": "Omar Saleh"},
    "shipping_address": {"city": "", "address": "", "zip": ""},
    "order": {"tax_amount": "5.5", "shipping_amount": "0", "discount_amount": "0", "reference_id": "` + ref + `",
      "items": [{"title": "Yoga mat", "description": null, "quantity": ` + quantity + `, "unit_price": "115.5", "tax_amount": "5.5",
        "reference_id": "24-WG088", "image_url": "https://m2.shop.example/media/catalog/product/y/o/yoga-mat.jpg",
        "product_url": "https://m2.shop.example/yoga-mat.html", "category": ""}]},
    "meta": {"tabby_plugin_platform": "magento", "tabby_plugin_version": "5.6.1"},
    "buyer_history": {"registered_since": null, "loyalty_level": 0},
    "order_history": []
  }
}`)
}

// TestMagentoOrderSession: the module's own order session. Its empty
// strings (the category of a product in no category, the phone, city,
// street and zip of an order without an address) are taken by the
// sandbox and the client alike; its float quantity is the one field the
// interface settles otherwise.
func TestMagentoOrderSession(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		hdr := map[string]string{"X-Merchant-Code": merchant}
		tg.call("POST", "/api/v1/webhooks", map[string]any{"url": tg.receiver, "is_test": true}, hdr).ok(t, "register webhook")
		body := magentoOrderSession("000000103", false)
		a := tg.call("POST", "/api/v2/checkout", body, nil)
		if a.status != 400 || strings.Contains(string(a.raw), "category") {
			t.Fatalf("session as sent: %d %s", a.status, a.raw)
		}
		clientAgrees(t, body, false, "$.payment.order.items[0].quantity")
		if v := api.ValidateCheckout(body, nil); v == nil || len(v.Problems) != 1 {
			t.Fatalf("the client's verdict on the session as sent: %v, want the quantity alone", v)
		}

		body = magentoOrderSession("000000103", true)
		id := createdSession(t, tg, body)
		note := tg.approve(id)
		if note["id"] != id || at(note, "order.reference_id") != "000000103" {
			t.Fatalf("notification: %v", note)
		}
	})
}
