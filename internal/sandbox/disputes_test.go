package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
	"github.com/bnpl-cli/bnpl/internal/webhook/webhooktest"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

const (
	kwLive = "sk_kw_sandbox"
)

// testResolver answers the sandbox's lookups, so that the URL rules never
// need the network.
var testResolver = webhooktest.Resolver{
	"hooks.shop-example.com":   {"93.184.216.34"},
	"other.shop-example.com":   {"93.184.216.35"},
	"private.shop-example.com": {"10.1.2.3"},
}

func newDisputeEnv(t testing.TB, opts Options) *env {
	t.Helper()
	if opts.Resolver == nil {
		opts.Resolver = testResolver
	}
	return newEnv(t, opts)
}

// ctl sends a request to a /_sandbox control endpoint from loopback.
func (e *env) ctl(method, path string, body any) resp {
	e.t.Helper()
	req := httptest.NewRequest(method, path, bodyReader(e.t, body))
	req.RemoteAddr = "127.0.0.1:40001"
	w := httptest.NewRecorder()
	e.sb.Handler("ae").ServeHTTP(w, req)
	return resp{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

// call sends a request with a key and extra headers.
func (e *env) call(method, path, key string, hdr map[string]string, body any) resp {
	e.t.Helper()
	h := map[string]string{}
	if key != "" {
		h["Authorization"] = "Bearer " + key
	}
	for k, v := range hdr {
		h[k] = v
	}
	return e.doRaw("ae", method, path, h, body)
}

// liveClosed answers the id of a live ae-sandbox payment, approved and
// captured in full (CLOSED).
func (e *env) liveClosed(amount string) string {
	e.t.Helper()
	s := e.createSession(checkoutBody("ae-sandbox", "AED", amount), aeLive)
	if _, err := e.sb.Approve(context.Background(), s.ID); err != nil {
		e.t.Fatal(err)
	}
	r := e.do("ae", "POST", "/api/v2/payments/"+s.Payment.ID+"/captures", aeLive, map[string]any{"amount": amount, "reference_id": "cap-1"})
	if r.status != 200 {
		e.t.Fatalf("capture: %d %s", r.status, r.body)
	}
	return s.Payment.ID
}

type disputeJSON struct {
	ID          string                 `json:"id"`
	PaymentID   string                 `json:"payment_id"`
	Amount      string                 `json:"amount"`
	Currency    string                 `json:"currency"`
	Status      string                 `json:"status"`
	Reason      string                 `json:"reason"`
	DaysLeft    int                    `json:"days_left"`
	CreatedAt   time.Time              `json:"created_at"`
	ExpiredAt   time.Time              `json:"expired_at"`
	Attachments []string               `json:"attachments"`
	Items       []service.DisputeItem  `json:"items"`
	OrderNumber string                 `json:"order_number"`
	History     []service.DisputeEvent `json:"history"`
}

func (e *env) openDispute(paymentID string, body any) disputeJSON {
	e.t.Helper()
	r := e.ctl("POST", "/_sandbox/payments/"+paymentID+"/dispute", body)
	if r.status != 200 {
		e.t.Fatalf("open dispute: %d %s", r.status, r.body)
	}
	var d disputeJSON
	if err := json.Unmarshal(r.body, &d); err != nil {
		e.t.Fatal(err)
	}
	return d
}

func (e *env) getDispute(id string) disputeJSON {
	e.t.Helper()
	r := e.call("GET", "/api/v1/disputes/"+id, aeLive, nil, nil)
	if r.status != 200 {
		e.t.Fatalf("get dispute: %d %s", r.status, r.body)
	}
	var w struct {
		Dispute *disputeJSON `json:"dispute"`
	}
	if err := json.Unmarshal(r.body, &w); err != nil || w.Dispute == nil {
		e.t.Fatalf("not a wrapped dispute: %v %s", err, r.body)
	}
	return *w.Dispute
}

func (e *env) resolve(id, status string) resp {
	e.t.Helper()
	return e.ctl("POST", "/_sandbox/disputes/"+id+"/resolve", map[string]string{"status": status})
}

const someID = "3fa85f64-5717-4562-b3fc-2c963f66afa6"

func TestDisputesRefuseTestKeys(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	mc := map[string]string{"X-Merchant-Code": "ae-sandbox"}
	for _, rt := range []struct{ method, path string }{
		{"GET", "/api/v1/disputes"},
		{"GET", "/api/v1/disputes/" + someID},
		{"POST", "/api/v1/disputes/" + someID + "/provide-evidence"},
		{"POST", "/api/v1/disputes/approve"},
		{"POST", "/api/v1/disputes/challenge"},
		{"POST", "/api/v1/disputes/attachments/upload"},
		{"GET", "/api/v1/dispute-webhooks"},
		{"POST", "/api/v1/dispute-webhooks"},
		{"GET", "/api/v1/dispute-webhooks/" + someID},
		{"PUT", "/api/v1/dispute-webhooks/" + someID},
		{"DELETE", "/api/v1/dispute-webhooks/" + someID},
	} {
		for _, hdr := range []map[string]string{nil, mc} {
			r := e.call(rt.method, rt.path, aeTest, hdr, `{}`)
			wantError(t, r, 403, "no_permission", "disputes have no test mode")
		}
		// Dispute webhooks answer "invalid secret key" for a missing key
		// too (their Errors table); disputes keep the general message.
		missing := "missing Bearer scheme"
		if strings.HasPrefix(rt.path, "/api/v1/dispute-webhooks") {
			missing = "invalid secret key"
		}
		wantError(t, e.call(rt.method, rt.path, "", mc, nil), 401, "not_authorized", missing)
		wantError(t, e.call(rt.method, rt.path, "bogus", mc, nil), 401, "not_authorized", "invalid secret key")
	}
	// Unknown paths and methods stay plain 404s.
	wantPlain404(t, e.call("DELETE", "/api/v1/disputes/"+someID, aeLive, nil, nil))
	wantPlain404(t, e.call("GET", "/api/v1/disputes/"+someID+"/nothing", aeLive, nil, nil))
	wantPlain404(t, e.call("PATCH", "/api/v1/dispute-webhooks", aeLive, mc, nil))
}

func TestDisputeOpenDefaultsAndGet(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	pid := e.liveClosed("300.00")
	d := e.openDispute(pid, nil)
	if d.Status != "new" || d.Reason != "product_issue" || d.Amount != "300.00" || d.Currency != "AED" || d.PaymentID != pid {
		t.Fatalf("opened %+v", d)
	}
	if !d.CreatedAt.Equal(testStart) || !d.ExpiredAt.Equal(testStart.Add(14*24*time.Hour)) || d.DaysLeft != 14 {
		t.Fatalf("times %v %v days_left %d", d.CreatedAt, d.ExpiredAt, d.DaysLeft)
	}
	if d.OrderNumber != "order-1" || len(d.Items) != 1 || d.Items[0].Title != "Shoes" || d.Items[0].UnitPrice != "300.00" {
		t.Fatalf("items %+v order %q", d.Items, d.OrderNumber)
	}
	got := e.getDispute(d.ID)
	if got.ID != d.ID || len(got.History) != 1 || got.History[0].EventType != "dispute_created" || got.History[0].Source != "customer" {
		t.Fatalf("get %+v", got)
	}
	// Another merchant's key, a bad id, an unknown id.
	wantError(t, e.call("GET", "/api/v1/disputes/"+d.ID, kwLive, nil, nil), 404, "not_found", "dispute not found")
	wantError(t, e.call("GET", "/api/v1/disputes/nope", aeLive, nil, nil), 400, "bad_data", "failed to decode request")
	wantError(t, e.call("GET", "/api/v1/disputes/"+someID, aeLive, nil, nil), 404, "not_found", "dispute not found")
	// The Go API agrees.
	api, err := e.sb.OpenDispute(context.Background(), pid, "not_delivered", "10.5")
	if err != nil || api.Reason != "not_delivered" || api.Amount.String() != "10.5" || len(api.History) != 1 {
		t.Fatalf("OpenDispute: %+v %v", api, err)
	}
}

func TestDisputeOpenRules(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	live := e.liveClosed("100.00")
	open := func(id string, body any) resp {
		return e.ctl("POST", "/_sandbox/payments/"+id+"/dispute", body)
	}
	wantError(t, open(live, map[string]any{"amount": "100.01"}), 400, "bad_data", "the amount 100.01 is more than captured minus refunded, 100.00")
	wantError(t, open(live, map[string]any{"amount": "1.001"}), 400, "bad_data", "invalid amount: ...")
	wantError(t, open(live, map[string]any{"amount": "0"}), 400, "bad_data", "invalid amount: the amount must be positive")
	wantError(t, open(live, map[string]any{"reason": "bored"}), 400, "bad_data", `reason "bored" is not one of ...`)
	wantError(t, open("nope", nil), 400, "bad_data", "invalid payment id")
	wantError(t, open(someID, nil), 404, "not_found", "no such payment")
	wantError(t, open(live, "{"), 400, "bad_data", "failed to decode request")

	testPayment := e.authorized("50.00")
	wantError(t, open(testPayment, nil), 400, "bad_data", "disputes have no test mode: ...")

	s := e.createSession(checkoutBody("ae-sandbox", "AED", "80.00"), aeLive)
	if _, err := e.sb.Approve(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	wantError(t, open(s.Payment.ID, nil), 400, "bad_data", "only CLOSED payments with captures can be disputed; this one is AUTHORIZED with 0 capture(s)")

	// After a partial refund the default is what is left.
	r := e.do("ae", "POST", "/api/v2/payments/"+live+"/refunds", aeLive, map[string]any{"amount": "30.00"})
	if r.status != 200 {
		t.Fatalf("refund: %d %s", r.status, r.body)
	}
	// An amount is a JSON string here as everywhere: a number is refused.
	wantError(t, open(live, map[string]any{"amount": 70}), 400, "bad_data", "invalid amount: must be a string, but got the number 70")
	if d := e.openDispute(live, map[string]any{"amount": "70"}); d.Amount != "70.00" {
		t.Fatalf("amount %s", d.Amount)
	}
}

func TestDisputeDaysLeftFollowsTheClock(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	d := e.openDispute(e.liveClosed("10.00"), nil)
	for _, c := range []struct {
		advance time.Duration
		want    int
	}{
		{time.Hour, 14},                    // 13d23h left: a started day counts
		{24 * time.Hour, 13},               // 12d23h
		{13*24*time.Hour - 2*time.Hour, 1}, // 1h left
		{time.Hour, 0},                     // the deadline itself
		{30 * 24 * time.Hour, 0},           // never negative
	} {
		e.clock.Advance(c.advance)
		if got := e.getDispute(d.ID).DaysLeft; got != c.want {
			t.Fatalf("after %v more: days_left %d, want %d", c.advance, got, c.want)
		}
	}
	// The sandbox clock's own offset counts as well.
	e2 := newDisputeEnv(t, Options{})
	d2 := e2.openDispute(e2.liveClosed("10.00"), nil)
	if _, err := e2.sb.AdvanceClock(context.Background(), 7*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := e2.getDispute(d2.ID).DaysLeft; got != 7 {
		t.Fatalf("days_left %d after advancing 7d", got)
	}
	// A resolved dispute has no deadline left.
	if r := e2.resolve(d2.ID, "declined"); r.status != 200 {
		t.Fatalf("resolve: %d %s", r.status, r.body)
	}
	if got := e2.getDispute(d2.ID).DaysLeft; got != 0 {
		t.Fatalf("days_left %d once declined", got)
	}
}

type disputePage struct {
	Disputes      []disputeJSON `json:"disputes"`
	NextPageToken *string       `json:"next_page_token"`
}

func (e *env) listDisputes(query string) disputePage {
	e.t.Helper()
	r := e.call("GET", "/api/v1/disputes"+query, aeLive, nil, nil)
	if r.status != 200 {
		e.t.Fatalf("list %s: %d %s", query, r.status, r.body)
	}
	var p disputePage
	if err := json.Unmarshal(r.body, &p); err != nil {
		e.t.Fatal(err)
	}
	if p.NextPageToken == nil {
		e.t.Fatalf("no next_page_token in %s", r.body)
	}
	return p
}

func TestDisputeListFiltersAndPaging(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	pid := e.liveClosed("1000.00")
	var ids []string
	for i := range 23 {
		ids = append(ids, e.openDispute(pid, map[string]any{"amount": fmt.Sprint(i + 1)}).ID)
		e.clock.Advance(time.Hour)
	}
	// Another merchant's disputes never show.
	kw := e.createSession(checkoutBody("kw-sandbox", "KWD", "10.000"), kwLive)
	if _, err := e.sb.Approve(context.Background(), kw.ID); err != nil {
		t.Fatal(err)
	}
	if r := e.do("ae", "POST", "/api/v2/payments/"+kw.Payment.ID+"/close", kwLive, nil); r.status != 200 {
		t.Fatal(string(r.body))
	}

	var seen []string
	query := ""
	pages := 0
	for {
		p := e.listDisputes(query)
		pages++
		for _, d := range p.Disputes {
			seen = append(seen, d.ID)
			if d.History != nil {
				t.Fatalf("list items carry no history: %+v", d)
			}
		}
		if *p.NextPageToken == "" {
			break
		}
		if len(p.Disputes) != 10 {
			t.Fatalf("page %d has %d disputes", pages, len(p.Disputes))
		}
		query = "?page_token=" + *p.NextPageToken
	}
	if pages != 3 || len(seen) != 23 {
		t.Fatalf("%d pages, %d disputes", pages, len(seen))
	}
	for i, id := range seen {
		if id != ids[len(ids)-1-i] {
			t.Fatalf("not newest first at %d", i)
		}
	}

	// Statuses (repeated) and the time bounds.
	if r := e.resolve(ids[0], "declined"); r.status != 200 {
		t.Fatal(string(r.body))
	}
	if r := e.resolve(ids[1], "cancelled"); r.status != 200 {
		t.Fatal(string(r.body))
	}
	p := e.listDisputes("?statuses=declined&statuses=cancelled")
	if len(p.Disputes) != 2 || *p.NextPageToken != "" {
		t.Fatalf("statuses: %+v", p)
	}
	if p := e.listDisputes("?statuses=new"); len(p.Disputes) != 10 || *p.NextPageToken == "" {
		t.Fatalf("new: %d", len(p.Disputes))
	}
	from := testStart.Add(20 * time.Hour).Format(time.RFC3339)
	if p := e.listDisputes("?created_at_gte=" + from); len(p.Disputes) != 3 {
		t.Fatalf("gte: %d", len(p.Disputes))
	}
	if p := e.listDisputes("?created_at_lte=" + testStart.Add(time.Hour).Format(time.RFC3339)); len(p.Disputes) != 2 {
		t.Fatalf("lte: %d", len(p.Disputes))
	}
	if p := e.listDisputes("?created_at_lte=2026-03-10"); len(p.Disputes) != 0 {
		t.Fatalf("date lte (midnight): %d", len(p.Disputes))
	}
	if p := e.listDisputes("?created_at_gte=2026-03-11&statuses=new"); len(p.Disputes) != 8 {
		t.Fatalf("date gte: %d", len(p.Disputes))
	}
	for _, bad := range []string{"?statuses=weird", "?created_at_gte=yesterday", "?page_token=!!!", "?page_token=bm9wZQ"} {
		wantError(t, e.call("GET", "/api/v1/disputes"+bad, aeLive, nil, nil), 400, "bad_data", "failed to decode request")
	}
	// kw-sandbox has none.
	r := e.call("GET", "/api/v1/disputes", kwLive, nil, nil)
	if r.status != 200 || !strings.Contains(string(r.body), `"disputes":[]`) || !strings.Contains(string(r.body), `"next_page_token":""`) {
		t.Fatalf("empty list: %s", r.body)
	}
}

// upload sends one multipart file and answers the response.
func (e *env) upload(field, name string, data []byte) resp {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile(field, name)
	if err != nil {
		e.t.Fatal(err)
	}
	fw.Write(data)
	mw.Close()
	req := httptest.NewRequest("POST", "/api/v1/disputes/attachments/upload", &buf)
	req.Header.Set("Authorization", "Bearer "+aeLive)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	w := httptest.NewRecorder()
	e.sb.Handler("ae").ServeHTTP(w, req)
	return resp{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

func (e *env) attachment() string {
	e.t.Helper()
	r := e.upload("attachment", "a.png", pngBytes)
	if r.status != 200 {
		e.t.Fatalf("upload: %d %s", r.status, r.body)
	}
	return r.json(e.t)["id"].(string)
}

var (
	pngBytes  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
	jpegBytes = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01")
	pdfBytes  = []byte("%PDF-1.4\n1 0 obj\n")
)

func TestAttachmentUpload(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	for name, data := range map[string][]byte{"x.png": pngBytes, "photo.bin": jpegBytes, "receipt": pdfBytes} {
		r := e.upload("attachment", name, data)
		if r.status != 200 || !edge.ValidUUID(fmt.Sprint(r.json(t)["id"])) {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
	}
	exact := append(append([]byte{}, pdfBytes...), make([]byte, wire.MaxAttachmentBytes-len(pdfBytes))...)
	if r := e.upload("attachment", "exact.pdf", exact); r.status != 200 {
		t.Fatalf("exactly 5 MiB: %d %s", r.status, r.body)
	}
	for what, r := range map[string]resp{
		"one byte over": e.upload("attachment", "big.pdf", append(exact, 0)),
		"text as png":   e.upload("attachment", "notes.png", []byte("Delivered on 2 May")),
		"gif":           e.upload("attachment", "a.gif", []byte("GIF89a\x01\x00")),
		"empty":         e.upload("attachment", "a.png", nil),
		"wrong field":   e.upload("file", "a.png", pngBytes),
		"not multipart": e.call("POST", "/api/v1/disputes/attachments/upload", aeLive, nil, `{"attachment": "x"}`),
	} {
		if r.status != 400 {
			t.Fatalf("%s: %d %s", what, r.status, r.body)
		}
		wantError(t, r, 400, "bad_data", "bad_request")
	}
	var n int
	if err := e.sb.DB.QueryRow(`SELECT count(*) FROM dispute_attachments WHERE size = ?`, wire.MaxAttachmentBytes).Scan(&n); err != nil || n != 1 {
		t.Fatalf("stored: %d %v", n, err)
	}
}

func TestProvideEvidence(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	pid := e.liveClosed("100.00")
	d := e.openDispute(pid, nil)
	att := e.attachment()
	path := "/api/v1/disputes/" + d.ID + "/provide-evidence"

	for what, body := range map[string]any{
		"empty":        "",
		"malformed":    "{",
		"no content":   map[string]any{"attachment_ids": []string{att}},
		"six ids":      map[string]any{"content": "x", "attachment_ids": []string{att, att, att, att, att, att}},
		"unknown id":   map[string]any{"content": "x", "attachment_ids": []string{someID}},
		"not a uuid":   map[string]any{"content": "x", "attachment_ids": []string{"a1"}},
		"wrong shapes": map[string]any{"content": 5},
	} {
		r := e.call("POST", path, aeLive, nil, body)
		if r.status != 400 {
			t.Fatalf("%s: %d %s", what, r.status, r.body)
		}
		wantError(t, r, 400, "bad_data", "failed to decode request")
	}
	wantError(t, e.call("POST", "/api/v1/disputes/x/provide-evidence", aeLive, nil, map[string]any{"content": "x"}), 400, "bad_data", "failed to decode request")
	wantError(t, e.call("POST", "/api/v1/disputes/"+someID+"/provide-evidence", aeLive, nil, map[string]any{"content": "x"}), 404, "not_found", "dispute not found")
	// Another merchant's attachment does not count as the merchant's.
	wantError(t, e.call("POST", "/api/v1/disputes/"+d.ID+"/provide-evidence", kwLive, nil, map[string]any{"content": "x"}), 404, "not_found", "dispute not found")

	r := e.call("POST", path, aeLive, nil, map[string]any{"content": "Delivered on 2 May", "attachment_ids": []string{att, att, att, att, att}})
	if r.status != 200 {
		t.Fatalf("evidence: %d %s", r.status, r.body)
	}
	var ev wire.Evidence
	if err := json.Unmarshal(r.body, &ev); err != nil || ev.DisputeID != d.ID || ev.CreatedBy != "merchant" || ev.Content != "Delivered on 2 May" ||
		len(ev.AttachmentIDs) != 5 || !edge.ValidUUID(ev.ID) || ev.CreatedAt == nil {
		t.Fatalf("evidence %s", r.body)
	}
	got := e.getDispute(d.ID)
	if got.Status != "in_progress" || len(got.History) != 2 || got.History[1].EventType != "evidence_provided" || len(got.Attachments) != 1 {
		t.Fatalf("after evidence %+v", got)
	}
	// Evidence already submitted.
	wantError(t, e.call("POST", path, aeLive, nil, map[string]any{"content": "more"}), 409, "conflict", "")
	// Support asks again: accepted once more.
	if r := e.resolve(d.ID, "evidence_merchant"); r.status != 200 {
		t.Fatal(string(r.body))
	}
	if r := e.call("POST", path, aeLive, nil, map[string]any{"content": "more"}); r.status != 200 {
		t.Fatalf("second round: %d %s", r.status, r.body)
	}
	// Resolved.
	if r := e.resolve(d.ID, "declined"); r.status != 200 {
		t.Fatal(string(r.body))
	}
	wantError(t, e.call("POST", path, aeLive, nil, map[string]any{"content": "late"}), 409, "conflict", "")
}

func TestApproveDisputes(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	pid := e.liveClosed("100.00")
	d1 := e.openDispute(pid, map[string]any{"amount": "60.00"})
	d2 := e.openDispute(pid, map[string]any{"amount": "70.00"})
	approve := func(ids ...string) resp {
		return e.call("POST", "/api/v1/disputes/approve", aeLive, nil, map[string]any{"dispute_ids": ids})
	}
	many := make([]string, 21)
	for i := range many {
		many[i] = d1.ID
	}
	wantError(t, approve(many...), 400, "bad_data", "failed to decode request")
	wantError(t, approve(), 400, "bad_data", "failed to decode request")
	wantError(t, approve("nope"), 400, "bad_data", "failed to decode request")
	wantError(t, e.call("POST", "/api/v1/disputes/approve", aeLive, nil, ""), 400, "bad_data", "failed to decode request")
	wantError(t, approve(d1.ID, someID), 404, "not_found", "dispute not found")
	if got := e.getDispute(d1.ID); got.Status != "new" {
		t.Fatalf("a refused approve changed %s", got.Status)
	}

	r := approve(d1.ID, d2.ID, d1.ID)
	if r.status != 200 {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	var out struct {
		Disputes []disputeJSON `json:"disputes"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil || len(out.Disputes) != 2 || out.Disputes[0].Status != "refunded" || out.Disputes[1].Status != "refunded" {
		t.Fatalf("approve answer %s", r.body)
	}
	// 60 refunded for the first, the 40 left for the second.
	p := e.do("ae", "GET", "/api/v2/payments/"+pid, aeLive, nil).payment(t)
	if len(p.Refunds) != 2 || p.Refunds[0].Amount.String() != "60" || p.Refunds[1].Amount.String() != "40" {
		t.Fatalf("refunds %+v", p.Refunds)
	}
	// Approving again changes nothing.
	if r := approve(d1.ID); r.status != 200 {
		t.Fatalf("repeat: %d %s", r.status, r.body)
	}
	if p := e.do("ae", "GET", "/api/v2/payments/"+pid, aeLive, nil).payment(t); len(p.Refunds) != 2 {
		t.Fatalf("repeat refunded again: %+v", p.Refunds)
	}
	// A declined dispute cannot be approved.
	d3 := e.openDispute(e.liveClosed("5.00"), nil)
	if r := e.resolve(d3.ID, "declined"); r.status != 200 {
		t.Fatal(string(r.body))
	}
	wantError(t, approve(d3.ID), 409, "conflict", "")
}

func TestChallengeDispute(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	d := e.openDispute(e.liveClosed("100.00"), nil)
	att := e.attachment()
	challenge := func(body map[string]any) resp {
		return e.call("POST", "/api/v1/disputes/challenge", aeLive, nil, body)
	}
	base := func() map[string]any {
		return map[string]any{"dispute_id": d.ID, "description": "Delivered", "reason": "merchant_reason_order_has_been_already_delivered"}
	}
	for what, body := range map[string]map[string]any{
		"no id":              set(base(), "dispute_id", nil),
		"bad id":             set(base(), "dispute_id", "x"),
		"no description":     set(base(), "description", nil),
		"no reason":          set(base(), "reason", nil),
		"unknown reason":     set(base(), "reason", "merchant_reason_bored"),
		"amount reason":      set(base(), "reason", wire.ChallengeReasonAmount),
		"bad amount":         set(set(base(), "reason", wire.ChallengeReasonAmount), "amount", "abc"),
		"amount over":        set(set(base(), "reason", wire.ChallengeReasonAmount), "amount", "100.01"),
		"number amount":      set(set(base(), "reason", wire.ChallengeReasonAmount), "amount", 80),
		"unknown attachment": set(base(), "attachment_ids", []string{someID}),
	} {
		r := challenge(body)
		if r.status != 400 {
			t.Fatalf("%s: %d %s", what, r.status, r.body)
		}
		wantError(t, r, 400, "bad_data", "failed to decode request")
	}
	wantError(t, challenge(set(base(), "dispute_id", someID)), 404, "not_found", "dispute not found")

	r := challenge(set(set(set(base(), "reason", wire.ChallengeReasonAmount), "amount", "80"), "attachment_ids", []string{att}))
	if r.status != 200 {
		t.Fatalf("challenge: %d %s", r.status, r.body)
	}
	if !strings.Contains(string(r.body), `"status":"in_progress"`) {
		t.Fatalf("answer %s", r.body)
	}
	got := e.getDispute(d.ID)
	last := got.History[len(got.History)-1]
	if got.Status != "in_progress" || last.EventType != "dispute_challenged" || !strings.Contains(last.Note, "amount: 80.00") {
		t.Fatalf("after challenge %+v", got)
	}
	// Only a new dispute can be challenged.
	wantError(t, challenge(base()), 409, "conflict", "")
}

func TestRefundBlockedWhileDisputed(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	pid := e.liveClosed("100.00")
	d := e.openDispute(pid, map[string]any{"amount": "40"})
	refund := func(ref string) resp {
		return e.do("ae", "POST", "/api/v2/payments/"+pid+"/refunds", aeLive, map[string]any{"amount": "10.00", "reference_id": ref})
	}
	wantError(t, refund("r1"), 409, "conflict", "payment is disputed")
	// Still blocked while support works on it.
	if r := e.resolve(d.ID, "in_progress"); r.status != 200 {
		t.Fatal(string(r.body))
	}
	wantError(t, refund("r1"), 409, "conflict", "payment is disputed")
	if r := e.resolve(d.ID, "declined"); r.status != 200 {
		t.Fatal(string(r.body))
	}
	if r := refund("r1"); r.status != 200 {
		t.Fatalf("refund after the dispute: %d %s", r.status, r.body)
	}
	// A resolved dispute stays resolved.
	wantError(t, e.resolve(d.ID, "cancelled"), 409, "conflict", "the dispute is already resolved (declined)")
	wantError(t, e.resolve(d.ID, "new"), 400, "bad_data", "...")
	wantError(t, e.resolve(someID, "declined"), 404, "not_found", "dispute not found")
}

func TestResolveRefundedRecordsTheRefund(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	pid := e.liveClosed("100.00")
	d := e.openDispute(pid, map[string]any{"amount": "25.50"})
	got, err := e.sb.ResolveDispute(context.Background(), d.ID, "refunded")
	if err != nil || got.Status != "refunded" {
		t.Fatalf("%+v %v", got, err)
	}
	p := e.do("ae", "GET", "/api/v2/payments/"+pid, aeLive, nil).payment(t)
	if len(p.Refunds) != 1 || p.Refunds[0].Amount.String() != "25.5" || p.Refunds[0].ReferenceID != "dispute-"+d.ID {
		t.Fatalf("refunds %+v", p.Refunds)
	}
}

func TestResetForgetsDisputesAndWebhooks(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	d := e.openDispute(e.liveClosed("10.00"), nil)
	e.attachment()
	if r := e.call("POST", "/api/v1/webhooks", aeTest, nil, map[string]any{"url": "https://hooks.shop-example.com/p"}); r.status != 200 {
		t.Fatal(string(r.body))
	}
	if err := e.sb.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantError(t, e.call("GET", "/api/v1/disputes/"+d.ID, aeLive, nil, nil), 404, "not_found", "dispute not found")
	if r := e.call("GET", "/api/v1/webhooks", aeTest, nil, nil); strings.TrimSpace(string(r.body)) != "[]" {
		t.Fatalf("webhooks after reset: %s", r.body)
	}
}
