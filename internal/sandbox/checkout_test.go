package sandbox

import (
	"bytes"
	"context"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

func TestAuthentication(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	body := checkoutBody("ae-sandbox", "AED", "100.00")
	type route struct{ method, path string }
	// The refused headers, in the order of each family's messages below.
	headers := []struct{ name, header string }{
		{"no header", ""},
		{"basic scheme", "Basic abc"},
		{"bearer without key", "Bearer"},
		{"not a secret key", "Bearer pk_test_abc"},
		{"unknown key", "Bearer sk_test_nobody"},
	}
	// Each family words the refusals as its Errors table says; the general
	// family keeps the messages Authentication rule 2 lists as seen.
	families := []struct {
		name     string
		routes   []route
		messages [5]string
	}{
		{
			name: "general",
			routes: []route{
				{"GET", "/api/v2/payments"},
				{"GET", "/api/v2/payments/" + someID},
				{"POST", "/api/v2/payments/" + someID + "/close"},
				{"PUT", "/api/v2/payments/" + someID},
				{"POST", "/api/v2/payments/" + someID + "/captures"},
				{"POST", "/api/v2/payments/" + someID + "/refunds"},
				{"GET", "/api/v2/checkout/" + someID},
				{"GET", "/api/v1/disputes"},
				{"POST", "/api/v1/disputes/approve"},
			},
			messages: [5]string{"missing Bearer scheme", "missing Bearer scheme", "missing Bearer scheme", "invalid secret key", "api key not found"},
		},
		{
			name:     "checkout creation",
			routes:   []route{{"POST", "/api/v2/checkout"}},
			messages: [5]string{"merchant is null", "merchant is null", "merchant is null", "merchant is null", "merchant is null"},
		},
		{
			name: "payment webhooks",
			routes: []route{
				{"GET", "/api/v1/webhooks"},
				{"POST", "/api/v1/webhooks"},
				{"GET", "/api/v1/webhooks/" + someID},
				{"PUT", "/api/v1/webhooks/" + someID},
				{"DELETE", "/api/v1/webhooks/" + someID},
			},
			messages: [5]string{"invalid secret key", "invalid secret key", "invalid secret key", "invalid secret key", "api key not found"},
		},
		{
			name: "dispute webhooks",
			routes: []route{
				{"GET", "/api/v1/dispute-webhooks"},
				{"POST", "/api/v1/dispute-webhooks"},
				{"GET", "/api/v1/dispute-webhooks/" + someID},
				{"PUT", "/api/v1/dispute-webhooks/" + someID},
				{"DELETE", "/api/v1/dispute-webhooks/" + someID},
			},
			messages: [5]string{"invalid secret key", "invalid secret key", "invalid secret key", "invalid secret key", "invalid secret key"},
		},
	}
	for _, fam := range families {
		for i, h := range headers {
			t.Run(fam.name+"/"+h.name, func(t *testing.T) {
				for _, rt := range fam.routes {
					hdr := map[string]string{"X-Merchant-Code": "ae-sandbox"}
					if h.header != "" {
						hdr["Authorization"] = h.header
					}
					wantError(t, e.doRaw("ae", rt.method, rt.path, hdr, body), 401, "not_authorized", fam.messages[i])
				}
			})
		}
		// A key of the other region is 403 in every family.
		t.Run(fam.name+"/other region", func(t *testing.T) {
			for _, rt := range fam.routes {
				wantError(t, e.do("sa", rt.method, rt.path, aeTest, body), 403, "no_permission", "merchant region does not match cluster region")
				wantError(t, e.do("ae", rt.method, rt.path, saTest, body), 403, "no_permission", "merchant region does not match cluster region")
			}
		})
	}
}

func TestCheckoutTenancy(t *testing.T) {
	e := newEnv(t, Options{})
	t.Run("merchant_code of another merchant", func(t *testing.T) {
		r := e.do("ae", "POST", "/api/v2/checkout", aeTest, checkoutBody("kw-sandbox", "KWD", "10.000"))
		wantError(t, r, 401, "not_authorized", "merchant is null")
	})
	t.Run("missing merchant_code", func(t *testing.T) {
		r := e.do("ae", "POST", "/api/v2/checkout", aeTest, set(checkoutBody("ae-sandbox", "AED", "10"), "merchant_code", nil))
		wantError(t, r, 401, "not_authorized", "merchant is null")
	})
	t.Run("token without tokens enabled", func(t *testing.T) {
		r := e.do("ae", "POST", "/api/v2/checkout", aeTest, set(checkoutBody("ae-sandbox", "AED", "10"), "token", "tok_1"))
		wantError(t, r, 403, "no_permission", "")
	})
	t.Run("token with tokens enabled", func(t *testing.T) {
		ms := store.BuiltinMerchants()
		ms[0].TokensEnabled = true
		e2 := newEnv(t, Options{Merchants: ms})
		s := e2.createSession(set(checkoutBody("ae-sandbox", "AED", "10"), "token", "tok_1"), aeTest)
		if s.Token == nil || *s.Token != "tok_1" {
			t.Fatalf("token %v", s.Token)
		}
	})
	t.Run("payments of other merchants and modes are invisible", func(t *testing.T) {
		id := e.authorized("10.00")
		for _, key := range []string{aeLive, kwTest} {
			wantError(t, e.do("ae", "GET", "/api/v2/payments/"+id, key, nil), 404, "not_found", "no such payment")
			wantError(t, e.do("ae", "POST", "/api/v2/payments/"+id+"/close", key, nil), 404, "not_found", "no such payment")
			wantError(t, e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", key, map[string]any{"amount": "1"}), 404, "not_found", "no such payment")
		}
		live := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeLive)
		if live.Payment.IsTest {
			t.Fatal("live key made a test payment")
		}
		wantError(t, e.do("ae", "GET", "/api/v2/payments/"+live.Payment.ID, aeTest, nil), 404, "not_found", "no such payment")
		if p := e.get(id); !p.IsTest {
			t.Fatal("test key made a live payment")
		}
	})
}

func TestCheckoutValidation(t *testing.T) {
	e := newEnv(t, Options{})
	post := func(body any) resp { return e.do("ae", "POST", "/api/v2/checkout", aeTest, body) }
	base := func() map[string]any { return checkoutBody("ae-sandbox", "AED", "100.00") }

	wantError(t, post(`{"payment": `), 400, "bad_data", "could not decode request")
	wantError(t, post(`not json`), 400, "bad_data", "could not decode request")
	wantError(t, post(set(base(), "payment.amount", map[string]any{"x": 1})), 400, "bad_data", "could not decode request")
	wantError(t, post(set(base(), "payment.amount", "ten")), 400, "bad_data", "could not decode request")
	wantError(t, post(set(base(), "lang", 5)), 400, "bad_data", "could not decode request")

	wantError(t, post(set(base(), "payment.currency", "SAR")), 400, "bad_data", "could not create payment: only 'AED' is supported, but got 'SAR'")
	wantError(t, e.do("ae", "POST", "/api/v2/checkout", kwTest, checkoutBody("kw-sandbox", "AED", "10")),
		400, "bad_data", "could not create payment: only 'KWD' is supported, but got 'AED'")

	wantFieldError(t, post(set(base(), "payment.amount", "10.123")), "$.payment.amount", "invalid_value", "money supports only 2 decimal places, but got: 3")
	wantFieldError(t, post(set(base(), "payment.amount", nil)), "$.payment.amount", "required", "")
	wantFieldError(t, post(set(base(), "payment.currency", nil)), "$.payment.currency", "required", "")
	wantFieldError(t, post(set(base(), "payment.buyer.email", "not-an-email")), "$.payment.buyer.email", "invalid_value", "")
	wantFieldError(t, post(set(base(), "payment.buyer.email", nil)), "$.payment.buyer.email", "required", "")
	wantFieldError(t, post(set(base(), "payment.buyer.phone", nil)), "$.payment.buyer.phone", "required", "")
	wantFieldError(t, post(set(base(), "payment.buyer.name", nil)), "$.payment.buyer.name", "required", "")
	wantFieldError(t, post(set(base(), "payment.buyer.dob", "02/01/1990")), "$.payment.buyer.dob", "invalid_value", "")
	wantFieldError(t, post(set(base(), "payment.buyer", nil)), "$.payment.buyer", "required", "")
	wantFieldError(t, post(set(base(), "payment.shipping_address.zip", nil)), "$.payment.shipping_address.zip", "required", "")
	wantFieldError(t, post(set(base(), "payment.shipping_address", nil)), "$.payment.shipping_address", "required", "")
	wantFieldError(t, post(set(base(), "payment.order.reference_id", nil)), "$.payment.order.reference_id", "required", "")
	wantFieldError(t, post(set(base(), "payment.order", nil)), "$.payment.order", "required", "")
	wantFieldError(t, post(set(base(), "payment.buyer_history", nil)), "$.payment.buyer_history", "required", "")
	wantFieldError(t, post(set(base(), "payment.buyer_history.registered_since", nil)), "$.payment.buyer_history.registered_since", "required", "")
	wantFieldError(t, post(set(base(), "lang", "fr")), "$.lang", "invalid_value", "")
	wantFieldError(t, post(set(base(), "lang", nil)), "$.lang", "required", "")
	wantFieldError(t, post(set(base(), "merchant_urls.success", "/relative")), "$.merchant_urls.success", "invalid_value", "")
	wantFieldError(t, post(set(base(), "payment.attachment", map[string]any{"body": "{}", "content_type": "text/plain"})), "$.payment.attachment.content_type", "invalid_value", "")
	items := base()
	items["payment"].(map[string]any)["order"].(map[string]any)["items"] = []any{map[string]any{"quantity": 1, "unit_price": "1.00"}}
	wantFieldError(t, post(items), "$.payment.order.items[0].title", "required", "")

	wantError(t, post(set(base(), "payment.amount", "0")), 400, "bad_data", "could not create payment: should be positive")
	wantError(t, post(set(base(), "payment.amount", "-5.00")), 400, "bad_data", "could not create payment: should be positive")
	qty := base()
	qty["payment"].(map[string]any)["order"].(map[string]any)["items"] = []any{map[string]any{"title": "x", "category": "c", "quantity": 0, "unit_price": "1.00"}}
	wantError(t, post(qty), 400, "bad_data", "could not create payment: item quantity should be positive")
	price := base()
	price["payment"].(map[string]any)["order"].(map[string]any)["items"] = []any{map[string]any{"title": "x", "category": "c", "quantity": 1, "unit_price": "-1.00"}}
	wantError(t, post(price), 400, "bad_data", "could not create payment: item unit price should be positive or zero")

	// KWD takes three places.
	s := e.createSession(checkoutBody("kw-sandbox", "KWD", "10.125"), kwTest)
	if s.Payment.Amount.String() != "10.125" {
		t.Fatalf("KWD amount %s", s.Payment.Amount)
	}
	wantFieldError(t, e.do("ae", "POST", "/api/v2/checkout", kwTest, checkoutBody("kw-sandbox", "KWD", "10.1255")),
		"$.payment.amount", "invalid_value", "money supports only 3 decimal places, but got: 4")
	// Amounts are strings, as the published OpenAPI types them: a JSON
	// number is a parameter of the wrong type.
	wantError(t, post(set(base(), "payment.amount", 100.5)), 400, "bad_data", "could not decode request")
	wantError(t, post(set(base(), "payment.amount", "+100")), 400, "bad_data", "")
	wantFieldError(t, post(set(base(), "payment.amount", " 100")), "$.payment.amount", "invalid_value", "' 100' has blanks around the number: write the digits only")
	wantFieldError(t, post(set(base(), "payment.amount", "1e3")), "$.payment.amount", "invalid_value", "exponent notation is not supported, but got '1e3': write a plain decimal such as 100.00")
	wantFieldError(t, post(set(base(), "payment.order.tax_amount", ".5")), "$.payment.order.tax_amount", "invalid_value", "'.5' needs a digit before the point, such as 0.5")
}

func TestUnknownPathsAndMethods(t *testing.T) {
	e := newEnv(t, Options{})
	id := "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/v2/nothing"},
		{"GET", "/"},
		{"GET", "/api/v2/checkout"},
		{"DELETE", "/api/v2/checkout"},
		{"PUT", "/api/v2/checkout/" + id},
		{"DELETE", "/api/v2/payments/" + id},
		{"POST", "/api/v2/payments"},
		{"GET", "/api/v2/payments/" + id + "/captures"},
		{"PATCH", "/api/v2/payments/" + id + "/close"},
		{"GET", "/_sandbox/reset"},
	} {
		wantPlain404(t, e.do("ae", c.method, c.path, aeTest, nil))
	}
}

func TestSessionShape(t *testing.T) {
	e := newEnv(t, Options{})
	created := e.do("ae", "POST", "/api/v2/checkout", aeTest, checkoutBody("ae-sandbox", "AED", "100.00"))
	if created.status != 200 {
		t.Fatalf("%d %s", created.status, created.body)
	}
	m := created.json(t)
	if m["status"] != "created" {
		t.Fatalf("status %v", m["status"])
	}
	if _, ok := m["token"]; !ok || m["token"] != nil {
		t.Fatalf("token should be present and null: %s", created.body)
	}
	p := m["payment"].(map[string]any)
	for _, k := range []string{"id", "amount", "currency", "order", "created_at", "status", "is_test", "description", "meta", "buyer", "shipping_address", "buyer_history", "order_history"} {
		if _, ok := p[k]; !ok {
			t.Errorf("session payment lacks %s", k)
		}
	}
	if p["status"] != "CREATED" || p["is_test"] != true {
		t.Fatalf("payment %v", p)
	}
	if p["buyer"].(map[string]any)["dob"] != "1990-01-02" {
		t.Fatalf("creation should echo dob as sent: %v", p["buyer"])
	}
	var s wire.CheckoutSession
	if err := s.UnmarshalJSON(created.body); err != nil {
		t.Fatal(err)
	}
	if got, want := s.WebURL(), "http://ae.sandbox.test/_sandbox/hpp/"+s.ID; got != want {
		t.Fatalf("web_url %q, want %q", got, want)
	}
	if got, want := s.QRCodeURL(), "http://ae.sandbox.test/api/v2/checkout/"+s.ID+"/hpp_link_qr"; got != want {
		t.Fatalf("qr_code %q, want %q", got, want)
	}
	inst := s.Configuration.Products.Installments
	if inst.Type != "installments" || !inst.IsAvailable || inst.RejectionReason != nil {
		t.Fatalf("products %+v", inst)
	}

	got := e.do("ae", "GET", "/api/v2/checkout/"+s.ID, aeTest, nil)
	if got.status != 200 {
		t.Fatalf("%d %s", got.status, got.body)
	}
	g := got.json(t)
	if g["lang"] != "en" || g["merchant_code"] != "ae-sandbox" {
		t.Fatalf("retrieval lacks lang/merchant_code: %s", got.body)
	}
	if mer := g["merchant"].(map[string]any); mer["name"] != "Sandbox Store UAE" {
		t.Fatalf("merchant %v", mer)
	}
	if _, ok := g["merchant"].(map[string]any)["logo"]; !ok {
		t.Fatal("merchant lacks logo")
	}
	if g["configuration"].(map[string]any)["expires_at"] != testStart.Add(20*time.Minute).Format(time.RFC3339) {
		t.Fatalf("expires_at %v", g["configuration"])
	}
	if dob := g["payment"].(map[string]any)["buyer"].(map[string]any)["dob"]; dob != "1990-01-02T00:00:00Z" {
		t.Fatalf("dob on read %v", dob)
	}
	if mu := g["merchant_urls"].(map[string]any); mu["success"] != "https://shop.example/ok" {
		t.Fatalf("merchant_urls %v", mu)
	}

	wantError(t, e.do("ae", "GET", "/api/v2/checkout/nope", aeTest, nil), 400, "bad_data", "invalid payment id")
	wantError(t, e.do("ae", "GET", "/api/v2/checkout/"+s.ID, kwTest, nil), 404, "not_found", "no such checkout session")

	qr := e.do("ae", "GET", "/api/v2/checkout/"+s.ID+"/hpp_link_qr", "", nil)
	if qr.status != 200 || qr.header.Get("Content-Type") != "image/png" {
		t.Fatalf("qr: %d %s", qr.status, qr.header)
	}
	if _, err := png.Decode(bytes.NewReader(qr.body)); err != nil {
		t.Fatalf("qr is not a PNG: %v", err)
	}

	full := e.get(s.Payment.ID)
	if full.Order.ReferenceID != "order-1" || len(full.Captures) != 0 || full.Captures == nil || full.Refunds == nil {
		t.Fatalf("payment %+v", full)
	}
	if !bytes.Contains(e.do("ae", "GET", "/api/v2/payments/"+s.Payment.ID, aeTest, nil).body, []byte(`"captures":[]`)) {
		t.Fatal("captures should be an empty array")
	}
}

func TestPreScoring(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	t.Run("phone ending 0002", func(t *testing.T) {
		s := e.createSession(set(checkoutBody("ae-sandbox", "AED", "100"), "payment.buyer.phone", "+971500000002"), aeTest)
		if s.Status != "rejected" || s.RejectionReason() != "not_available" || s.Configuration.Products.Installments.IsAvailable {
			t.Fatalf("session %+v", s)
		}
		if len(s.Configuration.AvailableProducts.Installments) != 0 {
			t.Fatal("a rejected session offers no checkout URL")
		}
		if s.Payment.Status != wire.StatusCreated {
			t.Fatalf("payment %s", s.Payment.Status)
		}
		if _, err := e.sb.Approve(ctx, s.ID); err == nil || !strings.Contains(err.Error(), "pre-scoring") {
			t.Fatalf("approve of a pre-scoring rejection: %v", err)
		}
	})
	t.Run("amount too high", func(t *testing.T) {
		s := e.createSession(checkoutBody("ae-sandbox", "AED", "50000.01"), aeTest)
		if s.Status != "rejected" || s.RejectionReason() != "order_amount_too_high" {
			t.Fatalf("session %s %s", s.Status, s.RejectionReason())
		}
		ok := e.createSession(checkoutBody("ae-sandbox", "AED", "50000.00"), aeTest)
		if ok.Status != "created" {
			t.Fatal("the limit itself is allowed")
		}
		kw := e.createSession(checkoutBody("kw-sandbox", "KWD", "5000.001"), kwTest)
		if kw.RejectionReason() != "order_amount_too_high" {
			t.Fatalf("KWD limit: %s", kw.Status)
		}
	})
	t.Run("otp rejected buyer", func(t *testing.T) {
		s := e.createSession(set(checkoutBody("ae-sandbox", "AED", "100"), "payment.buyer.email", "otp.rejected@tabby.ai"), aeTest)
		if s.Status != "created" {
			t.Fatal("pre-scoring should pass")
		}
		p, err := e.sb.Approve(ctx, s.ID)
		if err != nil || p.Status != wire.StatusRejected {
			t.Fatalf("approve: %v %v", p, err)
		}
	})
}
