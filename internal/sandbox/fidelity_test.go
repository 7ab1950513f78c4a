package sandbox

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
)

// Tests of fidelity details found in review: routing of unclean paths and
// unnamed methods, ids in capitals, the currency value, amount notation,
// attachment content types and the list time filters.

func TestUncleanPathsAre404(t *testing.T) {
	e := newEnv(t, Options{})
	id := e.authorized("10.00")
	cases := []struct{ method, path string }{
		{"GET", "/api/v2//payments"},
		{"GET", "/api/v2/payments/../payments"},
		{"GET", "/api/v2/./payments"},
		{"GET", "/api/v2/payments/%2E%2E/payments"},
		{"GET", "/api/v2/payments//" + id},
		{"GET", "/api/v2/payments/" + id + "/."},
		{"GET", "/api/v2/payments/"},
		{"POST", "//api/v2/checkout"},
		{"POST", "/api/v2/checkout/"},
		{"POST", "/api/v2/payments/" + id + "/captures/../close"},
		{"GET", "/_sandbox//clock"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := e.do("ae", c.method, c.path, aeTest, nil)
			wantPlain404(t, r)
			if loc := r.header.Get("Location"); loc != "" {
				t.Fatalf("redirects to %q", loc)
			}
		})
	}
	// The clean forms still answer.
	if r := e.do("ae", "GET", "/api/v2/payments", aeTest, nil); r.status != 200 {
		t.Fatalf("clean list: %d %s", r.status, r.body)
	}
	if r := e.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil); r.status != 200 {
		t.Fatalf("clean get: %d %s", r.status, r.body)
	}
}

func TestUnnamedMethodsAre404(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	sess := e.createSession(checkoutBody("ae-sandbox", "AED", "10.00"), aeTest)
	mc := map[string]string{"X-Merchant-Code": "ae-sandbox"}
	cases := []struct{ method, path, key string }{
		// ServeMux lets a GET pattern serve HEAD; the service does not.
		{"HEAD", "/api/v2/payments", aeTest},
		{"HEAD", "/api/v2/payments/" + sess.Payment.ID, aeTest},
		{"HEAD", "/api/v2/checkout/" + sess.ID, aeTest},
		{"HEAD", "/api/v2/checkout/" + sess.ID + "/hpp_link_qr", ""},
		{"HEAD", "/api/v1/webhooks", aeTest},
		{"HEAD", "/api/v1/disputes", aeLive},
		{"HEAD", "/api/v1/dispute-webhooks", aeLive},
		{"HEAD", "/_sandbox/clock", ""},
		{"HEAD", "/_sandbox/hpp/" + sess.ID, ""},
		// Other methods no pattern names.
		{"OPTIONS", "/api/v2/payments", aeTest},
		{"OPTIONS", "/api/v2/checkout", aeTest},
		{"POST", "/api/v2/checkout/" + sess.ID, aeTest},
		{"PATCH", "/api/v1/webhooks", aeTest},
		{"TRACE", "/api/v2/payments/" + sess.Payment.ID, aeTest},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			wantPlain404(t, e.call(c.method, c.path, c.key, mc, nil))
		})
	}
	// GET itself still answers.
	if r := e.do("ae", "GET", "/api/v2/payments/"+sess.Payment.ID, aeTest, nil); r.status != 200 {
		t.Fatalf("GET: %d %s", r.status, r.body)
	}
}

func TestUpperCaseIDs(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	up := strings.ToUpper
	mc := map[string]string{"X-Merchant-Code": "ae-sandbox"}

	sess := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
	pid := sess.Payment.ID
	// A control endpoint takes the session id in capitals.
	if r := e.ctl("POST", "/_sandbox/checkout/"+up(sess.ID)+"/approve", nil); r.status != 200 || r.payment(t).Status != "AUTHORIZED" {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	other := e.authorized("10.00")
	hook := e.registerPaymentHook(aeTest, "https://hooks.shop-example.com/pay", nil)
	dhook := hookID(t, e.call("POST", "/api/v1/dispute-webhooks", aeLive, mc, map[string]any{"url": "https://hooks.shop-example.com/disp"}))

	// Disputes, opened through the control endpoint with the payment id
	// in capitals.
	live := e.liveClosed("300.00")
	var disputes [4]string
	for i := range disputes {
		d := e.openDispute(up(live), map[string]any{"amount": "10.00"})
		if d.PaymentID != live {
			t.Fatalf("dispute names payment %q, want %q", d.PaymentID, live)
		}
		disputes[i] = d.ID
	}

	cases := []struct {
		name, method, path, key string
		hdr                     map[string]string
		body                    any
		want                    string // in the answer, in lower case
	}{
		{"get payment", "GET", "/api/v2/payments/" + up(pid), aeTest, nil, nil, pid},
		{"update payment", "PUT", "/api/v2/payments/" + up(pid), aeTest, nil, map[string]any{"order": map[string]any{"reference_id": "o-2"}}, `"o-2"`},
		{"capture", "POST", "/api/v2/payments/" + up(pid) + "/captures", aeTest, nil, map[string]any{"amount": "100.00"}, `"CLOSED"`},
		{"refund", "POST", "/api/v2/payments/" + up(pid) + "/refunds", aeTest, nil, map[string]any{"amount": "5.00"}, `"5`},
		{"close", "POST", "/api/v2/payments/" + up(other) + "/close", aeTest, nil, nil, other},
		{"get session", "GET", "/api/v2/checkout/" + up(sess.ID), aeTest, nil, nil, sess.ID},
		{"get webhook", "GET", "/api/v1/webhooks/" + up(hook), aeTest, nil, nil, hook},
		{"replace webhook", "PUT", "/api/v1/webhooks/" + up(hook), aeTest, nil, map[string]any{"url": "https://hooks.shop-example.com/pay2"}, hook},
		{"delete webhook", "DELETE", "/api/v1/webhooks/" + up(hook), aeTest, nil, nil, "ok"},
		{"get dispute webhook", "GET", "/api/v1/dispute-webhooks/" + up(dhook), aeLive, mc, nil, dhook},
		{"replace dispute webhook", "PUT", "/api/v1/dispute-webhooks/" + up(dhook), aeLive, mc, map[string]any{"url": "https://hooks.shop-example.com/disp2"}, dhook},
		{"delete dispute webhook", "DELETE", "/api/v1/dispute-webhooks/" + up(dhook), aeLive, mc, nil, "ok"},
		{"get dispute", "GET", "/api/v1/disputes/" + up(disputes[0]), aeLive, nil, nil, disputes[0]},
		{"provide evidence", "POST", "/api/v1/disputes/" + up(disputes[0]) + "/provide-evidence", aeLive, nil, map[string]any{"content": "sent"}, disputes[0]},
		{"approve", "POST", "/api/v1/disputes/approve", aeLive, nil, map[string]any{"dispute_ids": []string{up(disputes[1]), disputes[1]}}, disputes[1]},
		{"challenge", "POST", "/api/v1/disputes/challenge", aeLive, nil, map[string]any{"dispute_id": up(disputes[2]), "description": "Delivered", "reason": "merchant_reason_order_has_been_already_delivered"}, disputes[2]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.call(c.method, c.path, c.key, c.hdr, c.body)
			if r.status != 200 || !strings.Contains(string(r.body), c.want) {
				t.Fatalf("%d %s, want 200 with %s", r.status, r.body, c.want)
			}
		})
	}
	// Approving the same dispute named in two cases approves it once.
	if r := e.call("POST", "/api/v1/disputes/approve", aeLive, nil, map[string]any{"dispute_ids": []string{up(disputes[3]), disputes[3]}}); r.status != 200 || strings.Count(string(r.body), disputes[3]) != 1 {
		t.Fatalf("approve twice named: %d %s", r.status, r.body)
	}

	// The other control endpoints and the customer's pages.
	fresh := e.createSession(checkoutBody("ae-sandbox", "AED", "10.00"), aeTest)
	for _, c := range []struct {
		name   string
		r      func() resp
		status int
	}{
		{"qr code", func() resp { return e.do("ae", "GET", "/api/v2/checkout/"+up(fresh.ID)+"/hpp_link_qr", "", nil) }, 200},
		{"hosted page", func() resp { return e.ctl("GET", "/_sandbox/hpp/"+up(fresh.ID), nil) }, 200},
		{"approve by payment id", func() resp { return e.ctl("POST", "/_sandbox/payments/"+up(fresh.Payment.ID)+"/approve", nil) }, 200},
		{"expire auth", func() resp { return e.ctl("POST", "/_sandbox/payments/"+up(fresh.Payment.ID)+"/expire-auth", nil) }, 200},
		{"resolve dispute", func() resp { return e.resolve(up(disputes[0]), "declined") }, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := c.r(); r.status != c.status {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}
}

func TestCheckoutCurrencyValue(t *testing.T) {
	e := newEnv(t, Options{})
	for _, c := range []struct {
		name, key, merchant, currency string
	}{
		{"unknown code", aeTest, "ae-sandbox", "XYZ"},
		{"lower case of the merchant's", aeTest, "ae-sandbox", "aed"},
		{"mixed case", aeTest, "ae-sandbox", "Aed"},
		{"lower case of another known", aeTest, "ae-sandbox", "sar"},
		{"kw merchant, lower case", kwTest, "kw-sandbox", "kwd"},
		{"padded", aeTest, "ae-sandbox", " AED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("ae", "POST", "/api/v2/checkout", c.key, checkoutBody(c.merchant, c.currency, "10.00"))
			wantFieldError(t, r, "$.payment.currency", "invalid_value", "must be one of: AED, KWD, SAR")
		})
	}
	// A known currency that is not the merchant's stays the simple form.
	for _, c := range []struct{ key, merchant, currency, want string }{
		{aeTest, "ae-sandbox", "SAR", "could not create payment: only 'AED' is supported, but got 'SAR'"},
		{aeTest, "ae-sandbox", "KWD", "could not create payment: only 'AED' is supported, but got 'KWD'"},
		{kwTest, "kw-sandbox", "AED", "could not create payment: only 'KWD' is supported, but got 'AED'"},
	} {
		wantError(t, e.do("ae", "POST", "/api/v2/checkout", c.key, checkoutBody(c.merchant, c.currency, "10.00")), 400, "bad_data", c.want)
	}
}

func TestAmountNotation(t *testing.T) {
	e := newEnv(t, Options{})
	capture := func(id string, amount any) resp {
		return e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": amount})
	}
	refund := func(id string, amount any) resp {
		return e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest, map[string]any{"amount": amount})
	}
	// Exponent notation is refused the same way by both, as a string or
	// as a JSON number, and nothing is recorded.
	for _, amount := range []any{"1e2", "1E2", "1e1", "1.5e1", "-1e1", "1e-1"} {
		open := e.authorized("100.00")
		r := capture(open, amount)
		wantError(t, r, 400, "bad_data", "Errors: [invalid_value($.amount): exponent notation is not supported...")

		closed := e.authorized("100.00")
		if r := capture(closed, "100.00"); r.status != 200 {
			t.Fatalf("capture: %d %s", r.status, r.body)
		}
		r = refund(closed, amount)
		wantFieldError(t, r, "$.amount", "invalid_value", "")
		if !strings.Contains(string(r.body), "exponent notation is not supported") {
			t.Fatalf("refund %v: %s", amount, r.body)
		}
		if p := e.get(open); len(p.Captures) != 0 {
			t.Fatalf("capture %v recorded", amount)
		}
		if p := e.get(closed); len(p.Refunds) != 0 {
			t.Fatalf("refund %v recorded", amount)
		}
	}
	// Everything else outside the amount grammar, and JSON numbers, which
	// the published OpenAPI types as strings, are refused by both too.
	for _, c := range []struct {
		amount any
		want   string
	}{
		{" 1e1 ", "has blanks"},
		{"+1", "plus sign"},
		{".5", "digit before the point"},
		{"1.", "digits after the point"},
		{json.RawMessage(`1e1`), "must be a string, but got the number 1e1"},
		{json.RawMessage(`10`), "must be a string, but got the number 10"},
		{json.RawMessage(`true`), "must be a string holding a decimal"},
	} {
		amount, want := c.amount, c.want
		open := e.authorized("100.00")
		r := capture(open, amount)
		if r.status != 400 || !strings.Contains(string(r.body), want) {
			t.Fatalf("capture %v: %d %s", amount, r.status, r.body)
		}
		closed := e.authorized("100.00")
		if r := capture(closed, "100.00"); r.status != 200 {
			t.Fatalf("capture: %d %s", r.status, r.body)
		}
		r = refund(closed, amount)
		wantFieldError(t, r, "$.amount", "invalid_value", "")
		if !strings.Contains(string(r.body), want) {
			t.Fatalf("refund %v: %s", amount, r.body)
		}
		if p := e.get(open); len(p.Captures) != 0 {
			t.Fatalf("capture %v recorded", amount)
		}
		if p := e.get(closed); len(p.Refunds) != 0 {
			t.Fatalf("refund %v recorded", amount)
		}
	}
	// What the service's own plugins send passes: fewer places than the
	// currency's ("115.5"), and a zero written with a fraction where zero
	// is allowed.
	plugin := e.authorized("200.00")
	if r := e.do("ae", "POST", "/api/v2/payments/"+plugin+"/captures", aeTest, map[string]any{
		"amount": "115.5", "tax_amount": "0.0", "shipping_amount": "0.0"}); r.status != 200 {
		t.Fatalf("plugin capture: %d %s", r.status, r.body)
	}
	// The documented messages stay.
	closed := e.authorized("100.00")
	capture(closed, "100.00")
	wantError(t, refund(closed, "NaN"), 400, "bad_data", "error decoding string 'NaN': can't convert NaN to decimal")
	wantFieldError(t, refund(closed, "1.005"), "$.amount", "invalid_value", "money supports only 2 decimal places, but got: 3")
	wantError(t, capture(e.authorized("100.00"), "1.005"), 400, "bad_data", "Errors: [invalid_value($.amount): money supports only 2 decimal places, but got: 3]")
	// Plain decimals go through in both.
	if r := refund(closed, "10.50"); r.status != 200 {
		t.Fatalf("plain refund: %d %s", r.status, r.body)
	}
	if r := capture(e.authorized("100.00"), "10.50"); r.status != 200 {
		t.Fatalf("plain capture: %d %s", r.status, r.body)
	}
}

func TestAttachmentContentType(t *testing.T) {
	e := newEnv(t, Options{})
	post := func(ct string) resp {
		body := set(checkoutBody("ae-sandbox", "AED", "10.00"), "payment.attachment", map[string]any{"body": `{"a":1}`, "content_type": ct})
		return e.do("ae", "POST", "/api/v2/checkout", aeTest, body)
	}
	for _, c := range []struct {
		ct string
		ok bool
	}{
		{"application/vnd.acme.v1+json", true},
		{"application/vnd.my_shop.v1+json", true},
		{"application/vnd.my-shop.eu.v1+json", true},
		{"application/vnd.Acme2.v1+json", true},
		{"APPLICATION/VND.ACME.V1+JSON", true},
		{"application/vnd.a+b.v1+json", true}, // the client's rule admits '+'
		{"application/vnd._shop.v1+json", false},
		{"application/vnd..v1+json", false},
		{"application/vnd.my shop.v1+json", false},
		{"application/vnd.acme.v2+json", false},
		{"application/json", false},
		{"text/plain", false},
	} {
		t.Run(c.ct, func(t *testing.T) {
			r := post(c.ct)
			if c.ok {
				if r.status != 200 {
					t.Fatalf("%d %s", r.status, r.body)
				}
				return
			}
			wantFieldError(t, r, "$.payment.attachment.content_type", "invalid_value", "")
		})
	}
}

func TestListTimeFilters(t *testing.T) {
	for _, c := range []struct {
		value string
		want  time.Time
		ok    bool
	}{
		{"2026-11-21", time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), true},
		{"2026-11-21T10:00:00Z", time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), true},
		{"2026-11-21T10:00:00+04:00", time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC), true},
		{"2026-11-21T10:00:00", time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), true},
		{"2026-11-21T10:00:00.250", time.Date(2026, 11, 21, 10, 0, 0, 250e6, time.UTC), true},
		{"2026-11-21T10:00", time.Time{}, false},
		{"2026-11-21 10:00:00", time.Time{}, false},
		{"yesterday", time.Time{}, false},
	} {
		got, ok := service.ParseListTime(c.value)
		if ok != c.ok || !got.Equal(c.want) {
			t.Errorf("parseListTime(%q) = %v, %v; want %v, %v", c.value, got, ok, c.want, c.ok)
		}
	}

	// End to end: payments at 09:00 and 11:00 UTC; zone-less bounds are UTC.
	e := newDisputeEnv(t, Options{})
	first := e.liveClosed("100.00")
	e.clock.Advance(2 * time.Hour)
	second := e.liveClosed("100.00")
	d1 := e.openDispute(first, nil).ID
	e.clock.Advance(2 * time.Hour) // disputes at 11:00 and 13:00
	d2 := e.openDispute(second, nil).ID

	for _, c := range []struct {
		query string
		want  []string
	}{
		{"created_at__gte=2026-03-10T10:00:00", []string{second}},
		{"created_at__lte=2026-03-10T10:00:00", []string{first}},
		{"created_at__gte=2026-03-10T09:00:00&created_at__lte=2026-03-10T11:00:00", []string{second, first}},
		{"created_at__gte=2026-03-10T11:00:00.001", nil},
	} {
		r := e.do("ae", "GET", "/api/v2/payments?"+c.query, aeLive, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", c.query, r.status, r.body)
		}
		if got := listedIDs(t, r, "payments"); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("payments %s: %v, want %v", c.query, got, c.want)
		}
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"created_at_gte=2026-03-10T12:00:00", []string{d2}},
		{"created_at_lte=2026-03-10T12:00:00", []string{d1}},
		{"created_at_gte=" + url.QueryEscape("2026-03-10T11:00:00"), []string{d2, d1}},
	} {
		if got := disputeIDs(e.listDisputes("?" + c.query)); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("disputes %s: %v, want %v", c.query, got, c.want)
		}
	}
	wantError(t, e.do("ae", "GET", "/api/v2/payments?created_at__gte=2026-03-10T10:00", aeLive, nil), 400, "bad_data", "failed to decode request")
	wantError(t, e.call("GET", "/api/v1/disputes?created_at_lte=2026-03-10T25:00:00", aeLive, nil, nil), 400, "bad_data", "failed to decode request")
}

func listedIDs(t *testing.T, r resp, key string) []string {
	t.Helper()
	var ids []string
	items, _ := r.json(t)[key].([]any)
	for _, it := range items {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return ids
}

func disputeIDs(p disputePage) []string {
	var ids []string
	for _, d := range p.Disputes {
		ids = append(ids, d.ID)
	}
	return ids
}
