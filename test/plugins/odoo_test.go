package plugins

import (
	"fmt"
	"strconv"
	"testing"
)

// pyFloat writes a float the way Python's str() writes one: the shortest
// form that reads back, with ".0" on whole numbers. The Odoo module sends
// order and capture amounts so ("115.5", "0.0").
func pyFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if f == float64(int64(f)) {
		s += ".0"
	}
	return s
}

// odooSession is the session body the Odoo module builds for a sale order:
// the total with the currency's places, the order's tax, shipping and
// discount as Python floats, an empty zip when the partner has none, the
// street lines joined with a space (empty when there are none), the
// customer's previous orders (items with no category), and meta.txref.
func odooSession(ref, txref, webhookBase string) map[string]any {
	buyer := map[string]any{"email": "otp.success@tabby.ai", "name": "Layla Haddad", "phone": "+971500000001"}
	address := map[string]any{"address": "", "city": "Dubai", "zip": ""}
	line := func(title string, qty int, price float64) map[string]any {
		return map[string]any{
			"title": title, "quantity": qty, "unit_price": fmt.Sprintf("%.2f", price),
			"reference_id": "FURN_" + title, "description": title,
			"image_url":   webhookBase + "/web/image?model=product.product&id=7&field=image_1920",
			"product_url": webhookBase + "/shop/" + title,
			"category":    "Furniture",
		}
	}
	return map[string]any{
		"lang":          "en",
		"merchant_code": merchant,
		"merchant_urls": map[string]any{
			"success": webhookBase + "/payment/tabby/success",
			"cancel":  webhookBase + "/payment/tabby/cancel",
			"failure": webhookBase + "/payment/tabby/failure",
		},
		"payment": map[string]any{
			"amount":      fmt.Sprintf("%.2f", 115.5),
			"currency":    "AED",
			"description": "Sales order #" + ref,
			"order": map[string]any{
				"reference_id":    ref,
				"shipping_amount": pyFloat(0),
				"discount_amount": pyFloat(0),
				"tax_amount":      pyFloat(5.5),
				"items":           []any{line("desk", 1, 110)},
			},
			"buyer":            buyer,
			"shipping_address": address,
			"buyer_history":    map[string]any{"registered_since": "2024-03-01T08:30:00Z", "loyalty_level": 2},
			"order_history": []any{map[string]any{
				"amount": "80.00", "payment_method": "cod", "purchased_at": "2025-10-01T10:00:00Z", "status": "complete",
				"buyer": buyer, "shipping_address": address,
				"items": []any{map[string]any{
					"quantity": 2, "title": "chair", "unit_price": "40.00", "reference_id": "FURN_chair",
					"ordered": 2, "captured": 2, "shipped": 2, "refunded": 0,
				}},
			}},
			"meta": map[string]any{"tabby_plugin_platform": "Odoo", "tabby_plugin_version": "1.0.3", "txref": txref},
		},
	}
}

func TestOdoo(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		hdr := map[string]string{"X-Merchant-Code": merchant}
		const shop = "https://odoo.shop.example"

		// Webhook registration: list, register {url, is_test} when absent,
		// and on a test/live change re-register with PUT {url} only.
		hooks := tg.call("GET", "/api/v1/webhooks", nil, hdr).ok(t, "list webhooks")
		if find(hooks.list, "url", tg.receiver) != nil {
			t.Fatal("a webhook before any was registered")
		}
		tg.call("POST", "/api/v1/webhooks", map[string]any{"url": tg.receiver, "is_test": true}, hdr).ok(t, "register webhook")
		hooks = tg.call("GET", "/api/v1/webhooks", nil, hdr).ok(t, "list webhooks")
		hook := find(hooks.list, "url", tg.receiver)
		if hook == nil || hook["is_test"] != true || hook["id"] == "" {
			t.Fatalf("registered webhook as read back: %v", hooks.list)
		}
		hookID := hook["id"].(string)
		tg.call("PUT", "/api/v1/webhooks/"+hookID, map[string]any{"url": tg.receiver}, hdr).ok(t, "update webhook")

		// Session.
		body := mustJSON(t, odooSession("S00042", "S00042-1", shop))
		clientAgrees(t, body, true)
		s := tg.call("POST", "/api/v2/checkout", body, nil).ok(t, "session")
		if s.body["status"] != "created" {
			t.Fatalf("session status %v", s.body["status"])
		}
		if web := str(t, s.body, "configuration.available_products.installments.0.web_url"); web == "" {
			t.Fatal("no web_url")
		}
		id := str(t, s.body, "payment.id")

		// The customer pays; the notification names the payment and order.
		note := tg.approve(id)
		if note["id"] != id || at(note, "order.reference_id") != "S00042" {
			t.Fatalf("notification: %v", note)
		}
		// On the notification and the success redirect the module reads
		// the payment: status, currency, amount and meta.txref.
		p := tg.call("GET", "/api/v2/payments/"+id, nil, nil).ok(t, "read payment").body
		if p["status"] != "AUTHORIZED" || p["currency"] != "AED" || !amountIs(p["amount"], "115.5") || at(p, "meta.txref") != "S00042-1" {
			t.Fatalf("payment as read: status %v currency %v amount %v txref %v", p["status"], p["currency"], p["amount"], at(p, "meta.txref"))
		}

		// Capture of the whole order: the amount as a rounded Python float,
		// tax and shipping as floats, items without a category.
		capture := map[string]any{
			"amount": pyFloat(115.5), "tax_amount": pyFloat(5.5), "shipping_amount": pyFloat(0),
			"reference_id": "S00042-2",
			"items": []any{map[string]any{"title": "[FURN_desk] desk", "description": "desk", "quantity": 1,
				"unit_price": "110.00", "reference_id": "FURN_desk"}},
		}
		p = tg.call("POST", "/api/v2/payments/"+id+"/captures", capture, nil).ok(t, "capture").body
		c := find(p["captures"], "reference_id", "S00042-2")
		if c == nil || c["id"] == "" || !amountIs(c["amount"], "115.5") || p["currency"] != "AED" {
			t.Fatalf("capture as read: %v", p["captures"])
		}
		if p["status"] != "CLOSED" {
			t.Fatalf("status after the whole capture: %v", p["status"])
		}

		// Refund: amount as a float, a reason, the transaction reference.
		refund := map[string]any{"amount": pyFloat(50), "reason": "Refund transaction S00042-3", "reference_id": "S00042-3"}
		p = tg.call("POST", "/api/v2/payments/"+id+"/refunds", refund, nil).ok(t, "refund").body
		r := find(p["refunds"], "reference_id", "S00042-3")
		if r == nil || r["id"] == "" || !amountIs(r["amount"], "50") {
			t.Fatalf("refund as read: %v", p["refunds"])
		}

		// Void: close with no body at all; the module reads status.
		s = tg.call("POST", "/api/v2/checkout", mustJSON(t, odooSession("S00043", "S00043-1", shop)), nil).ok(t, "second session")
		id2 := str(t, s.body, "payment.id")
		tg.approve(id2)
		p = tg.call("POST", "/api/v2/payments/"+id2+"/close", nil, nil).ok(t, "close").body
		if p["status"] != "CLOSED" {
			t.Fatalf("status after close: %v", p["status"])
		}

		// Unregister.
		tg.call("DELETE", "/api/v1/webhooks/"+hookID, nil, hdr).ok(t, "delete webhook")
		if find(tg.call("GET", "/api/v1/webhooks", nil, hdr).ok(t, "list").list, "url", tg.receiver) != nil {
			t.Fatal("webhook still listed after DELETE")
		}
	})
}

// TestOdooEdges: what the Odoo module sends for customers and orders at
// the edges, each decided in docs/sandbox.md.
func TestOdooEdges(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		post := func(edit func(p map[string]any)) answer {
			b := odooSession("S00050", "S00050-1", "https://odoo.shop.example")
			edit(b["payment"].(map[string]any))
			return tg.call("POST", "/api/v2/checkout", mustJSON(t, b), nil)
		}
		// A partner with neither phone nor mobile: Odoo's False, a JSON
		// false, where the interface types phone as a string: refused.
		b := odooSession("S00051", "S00051-1", "https://odoo.shop.example")
		b["payment"].(map[string]any)["buyer"] = map[string]any{"email": "a@b.example", "name": "No Phone", "phone": false}
		a := tg.call("POST", "/api/v2/checkout", mustJSON(t, b), nil)
		if a.status != 400 {
			t.Fatalf("phone false: %d %s", a.status, a.raw)
		}
		clientAgrees(t, mustJSON(t, b), false, "$.payment.buyer.phone")

		// A tax that Python writes with more places than AED allows: the
		// interface's places rule is explicit, so it is refused.
		a = post(func(p map[string]any) { p["order"].(map[string]any)["tax_amount"] = pyFloat(15.749999999999998) })
		if a.status != 400 {
			t.Fatalf("tax with 15 places: %d %s", a.status, a.raw)
		}
		// An address with its street lines joined by a newline passes.
		a = post(func(p map[string]any) {
			p["shipping_address"] = map[string]any{"address": "Villa 3\nStreet 5", "city": "Dubai", "zip": ""}
		})
		a.ok(t, "newline in the address")
	})
}
