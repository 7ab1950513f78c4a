package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	paymentBody = `{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","created_at":"2026-01-14T13:08:54Z","status":"closed","is_test":true,"amount":"100.00","currency":"AED","order":{"reference_id":"ORDER-1"},"captures":[],"refunds":[],"meta":{},"token":null}`
	disputeBody = `{"status":"new","dispute_id":"9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11","payment_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","amount":"50.00","currency":"AED","created_at":"2026-01-15T13:08:54Z"}`
	hookSecret  = "hook-secret-0123456789"
)

func TestClassify(t *testing.T) {
	p := Classify([]byte(paymentBody))
	if p.Kind != KindPayment || p.ID != "3fa85f64-5717-4562-b3fc-2c963f66afa6" || p.Status != "closed" || p.Amount != "100.00" || p.Currency != "AED" || p.DisputeID != "" {
		t.Errorf("payment: %+v", p)
	}
	d := Classify([]byte(disputeBody))
	if d.Kind != KindDispute || d.DisputeID != "9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11" || d.PaymentID != "3fa85f64-5717-4562-b3fc-2c963f66afa6" || d.ID != "" || d.Status != "new" {
		t.Errorf("dispute: %+v", d)
	}
	if n := Classify([]byte(`{"dispute_ids":["x"]}`)); n.Kind != KindUnknown {
		t.Errorf("unknown: %+v", n)
	}
	if n := Classify([]byte(`{"id":"x","amount":12.5}`)); n.Kind != KindPayment || n.Amount != "12.5" {
		t.Errorf("numeric amount: %+v", n)
	}
	if n := Classify([]byte(`[1,2]`)); n.Kind != KindUnknown {
		t.Errorf("array: %+v", n)
	}
}

type recorder struct {
	mu       sync.Mutex
	notes    []Notification
	rejected []Rejection
}

func (r *recorder) receiver() *Receiver {
	return &Receiver{
		Now:            func() time.Time { return time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC) },
		OnNotification: func(n Notification) { r.mu.Lock(); r.notes = append(r.notes, n); r.mu.Unlock() },
		OnReject:       func(j Rejection) { r.mu.Lock(); r.rejected = append(r.rejected, j); r.mu.Unlock() },
	}
}

func post(t *testing.T, h http.Handler, body string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/hooks/bnpl", strings.NewReader(body))
	for k, vs := range header {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestReceiverHeaderCheck(t *testing.T) {
	var rec recorder
	r := rec.receiver()
	r.HeaderTitle, r.HeaderValue = "X-Hook", hookSecret

	cases := []struct {
		name   string
		header http.Header
		status int
	}{
		{"missing", nil, 401},
		{"wrong", http.Header{"X-Hook": {"guess"}}, 401},
		{"prefix of the secret", http.Header{"X-Hook": {hookSecret[:5]}}, 401},
		{"right", http.Header{"X-Hook": {hookSecret}}, 200},
		{"header name in another case", http.Header{"x-hook": {hookSecret}}, 401}, // raw map: not canonical, so not found
	}
	for _, c := range cases {
		got := post(t, r, paymentBody, c.header)
		if got.Code != c.status {
			t.Errorf("%s: status %d, want %d", c.name, got.Code, c.status)
		}
		if strings.Contains(got.Body.String(), hookSecret) {
			t.Errorf("%s: the answer quotes the secret", c.name)
		}
	}
	if len(rec.notes) != 1 || !rec.notes[0].Verified {
		t.Fatalf("notes: %+v", rec.notes)
	}
	if v := rec.notes[0].Header.Get("X-Hook"); v != "****" {
		t.Errorf("the secret is kept in the reported headers: %q", v)
	}
	if len(rec.rejected) != 4 {
		t.Fatalf("rejections: %+v", rec.rejected)
	}
	for _, j := range rec.rejected {
		if strings.Contains(j.Reason, hookSecret) || strings.Contains(j.Reason, "guess") {
			t.Errorf("rejection quotes a value: %q", j.Reason)
		}
	}
	if !strings.Contains(rec.rejected[0].Reason, "missing") || !strings.Contains(rec.rejected[1].Reason, "wrong value") {
		t.Errorf("reasons: %q, %q", rec.rejected[0].Reason, rec.rejected[1].Reason)
	}
}

func TestReceiverWithoutHeaderAcceptsAll(t *testing.T) {
	var rec recorder
	r := rec.receiver()
	if got := post(t, r, disputeBody, http.Header{"X-Anything": {"1"}}); got.Code != 200 {
		t.Fatalf("status %d", got.Code)
	}
	if len(rec.notes) != 1 || rec.notes[0].Verified || rec.notes[0].Kind != KindDispute || rec.notes[0].Path != "/hooks/bnpl" {
		t.Errorf("notes: %+v", rec.notes)
	}
}

func TestReceiverRefusesBadDeliveries(t *testing.T) {
	var rec recorder
	r := rec.receiver()
	if got := post(t, r, "not json", nil); got.Code != 400 {
		t.Errorf("not json: %d", got.Code)
	}
	if got := post(t, r, `{"a":"`+strings.Repeat("x", MaxBodyBytes)+`"}`, nil); got.Code != 413 {
		t.Errorf("too large: %d", got.Code)
	}
	req := httptest.NewRequest(http.MethodPut, "/", strings.NewReader(paymentBody))
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 405 || w.Header().Get("Allow") == "" {
		t.Errorf("PUT: %d %v", w.Code, w.Header())
	}
	// A probe is answered but not counted.
	w = httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	if w.Code != 200 || len(rec.notes) != 0 || r.Count() != 0 {
		t.Errorf("GET: %d, notes %d", w.Code, len(rec.notes))
	}
}

func TestReceiverForwards(t *testing.T) {
	var gotBody []byte
	var gotHeader http.Header
	merchant := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		gotBody, _ = io.ReadAll(req.Body)
		gotHeader = req.Header.Clone()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer merchant.Close()

	var rec recorder
	r := rec.receiver()
	r.HeaderTitle, r.HeaderValue = "X-Hook", hookSecret
	r.ForwardTo = merchant.URL + "/webhooks"
	got := post(t, r, paymentBody, http.Header{"X-Hook": {hookSecret}, "Content-Type": {"application/json"}, "X-Merchant-Code": {"ae-sandbox"}})
	if got.Code != 200 {
		t.Fatalf("status %d", got.Code)
	}
	if string(gotBody) != paymentBody {
		t.Errorf("forwarded body %q", gotBody)
	}
	// The merchant's endpoint checks the same header, so it must arrive.
	if gotHeader.Get("X-Hook") != hookSecret || gotHeader.Get("X-Merchant-Code") != "ae-sandbox" || gotHeader.Get("Content-Type") != "application/json" {
		t.Errorf("forwarded header %v", gotHeader)
	}
	if f := rec.notes[0].Forward; f == nil || f.Status != 202 || f.URL != merchant.URL+"/webhooks" || f.Error != "" {
		t.Errorf("forward result %+v", f)
	}

	// A rejected delivery is not forwarded.
	gotBody = nil
	post(t, r, paymentBody, nil)
	if gotBody != nil {
		t.Errorf("a rejected delivery was forwarded")
	}

	// A forward that fails is reported, and the sender hears of it (502)
	// so that it retries.
	merchant.Close()
	got = post(t, r, paymentBody, http.Header{"X-Hook": {hookSecret}})
	if got.Code != http.StatusBadGateway || !strings.Contains(got.Body.String(), "the forward failed") {
		t.Errorf("status %d %s", got.Code, got.Body)
	}
	if f := rec.notes[1].Forward; f == nil || f.Status != 0 || f.Error == "" {
		t.Errorf("failed forward %+v", f)
	}
}

func TestWriteJSONLine(t *testing.T) {
	var rec recorder
	r := rec.receiver()
	r.HeaderTitle, r.HeaderValue = "X-Hook", hookSecret
	post(t, r, disputeBody, http.Header{"X-Hook": {hookSecret}})
	post(t, r, "  "+paymentBody+"\n", http.Header{"X-Hook": {hookSecret}})

	var out bytes.Buffer
	for _, n := range rec.notes {
		if err := WriteJSONLine(&out, n); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"received_at":"2026-01-15T10:00:00Z","kind":"dispute","path":"/hooks/bnpl","dispute_id":"9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11","payment_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","status":"new","event":"new","amount":"50.00","currency":"AED","verified":true,"payload":` + disputeBody + "}\n" +
		`{"received_at":"2026-01-15T10:00:00Z","kind":"payment","path":"/hooks/bnpl","id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","payment_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","status":"closed","event":"closed","amount":"100.00","currency":"AED","verified":true,"payload":` + paymentBody + "}\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Errorf("not one JSON value per line: %v", err)
		}
	}
	if strings.Contains(out.String(), hookSecret) {
		t.Errorf("the secret is in the output")
	}
}

func TestServeStopsAfterMax(t *testing.T) {
	var rec recorder
	r := rec.receiver()
	r.Max = 2
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- r.Serve(context.Background(), ln) }()
	url := "http://" + ln.Addr().String() + "/h"
	for i := 0; i < 2; i++ {
		resp, err := http.Post(url, "application/json", strings.NewReader(paymentBody))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("delivery %d: %d", i, resp.StatusCode)
		}
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after Max notifications")
	}
	if r.Count() != 2 {
		t.Errorf("count %d", r.Count())
	}
	// Beyond Max, the handler answers 503 (a delivery racing the shutdown).
	if got := post(t, r, paymentBody, nil); got.Code != 503 {
		t.Errorf("after max: %d", got.Code)
	}
}

func TestServeStopsWithContext(t *testing.T) {
	r := &Receiver{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- r.Serve(ctx, ln) }()
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return on cancel")
	}
}

func TestReceiverFailFirst(t *testing.T) {
	var forwarded atomic.Int32
	merchant := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { forwarded.Add(1) }))
	defer merchant.Close()

	var rec recorder
	r := rec.receiver()
	r.HeaderTitle, r.HeaderValue = "X-Hook", hookSecret
	r.FailFirst, r.Max = 2, 1
	r.ForwardTo = merchant.URL
	good := http.Header{"X-Hook": {hookSecret}}

	// Deliveries the checks refuse keep their own answer and use up
	// nothing: the rehearsal is of a receiver that is down, not of one
	// that lets anything through.
	if got := post(t, r, paymentBody, nil); got.Code != 401 {
		t.Errorf("no header: %d", got.Code)
	}
	if got := post(t, r, "not json", good); got.Code != 400 {
		t.Errorf("not json: %d", got.Code)
	}
	if got := post(t, r, disputeBody, good); got.Code != 500 {
		t.Errorf("first good one: %d", got.Code)
	}
	if got := post(t, r, paymentBody, good); got.Code != 500 || strings.Contains(got.Body.String(), hookSecret) {
		t.Errorf("second good one: %d %s", got.Code, got.Body)
	}
	select {
	case <-r.Done():
		t.Fatal("deliveries failed on purpose counted toward Max")
	default:
	}
	if got := post(t, r, paymentBody, good); got.Code != 200 {
		t.Errorf("the retry: %d", got.Code)
	}
	select {
	case <-r.Done():
	default:
		t.Error("Max not reached by the delivery after the failures")
	}

	if r.Count() != 1 || r.FailedOnPurpose() != 2 || len(rec.notes) != 1 {
		t.Errorf("count %d, failed %d, notes %d", r.Count(), r.FailedOnPurpose(), len(rec.notes))
	}
	if n := forwarded.Load(); n != 1 {
		t.Errorf("forwarded %d times, want only the accepted one", n)
	}
	if len(rec.rejected) != 4 {
		t.Fatalf("rejections: %+v", rec.rejected)
	}
	for i, j := range rec.rejected[:2] {
		if j.OnPurpose {
			t.Errorf("check failure %d reported as on purpose: %+v", i, j)
		}
	}
	d, p := rec.rejected[2], rec.rejected[3]
	if !d.OnPurpose || d.Status != 500 || d.Kind != KindDispute || d.ID != "9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11" || d.Reason != "failed on purpose, 1 of 2" || d.Path != "/hooks/bnpl" {
		t.Errorf("dispute failure: %+v", d)
	}
	if !p.OnPurpose || p.Kind != KindPayment || p.ID != "3fa85f64-5717-4562-b3fc-2c963f66afa6" || p.Reason != "failed on purpose, 2 of 2" {
		t.Errorf("payment failure: %+v", p)
	}
	if s := r.String(); !strings.Contains(s, "answering the first 2 with 500") || strings.Contains(s, hookSecret) {
		t.Errorf("String: %q", s)
	}
}

func TestReceiverAnswersWithTheForwardsStatus(t *testing.T) {
	answer := 500
	merchant := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(answer) }))
	defer merchant.Close()
	var rec recorder
	r := rec.receiver()
	r.ForwardTo, r.Max = merchant.URL, 1
	got := post(t, r, paymentBody, http.Header{EventHeader: {"captured"}})
	if got.Code != 500 {
		t.Fatalf("status %d, want the forward's 500", got.Code)
	}
	select {
	case <-r.Done():
		t.Fatal("a notification the forward failed counted toward --max")
	default:
	}
	answer = 200
	if got := post(t, r, paymentBody, nil); got.Code != 200 {
		t.Fatalf("the retry: status %d", got.Code)
	}
	<-r.Done()
	if len(rec.notes) != 2 || rec.notes[0].Event != "captured" || rec.notes[1].Event != "closed" {
		t.Fatalf("events %+v", rec.notes)
	}
}

func TestEventFromTheBody(t *testing.T) {
	for body, want := range map[string]string{
		`{"id":"p","status":"authorized","amount":"1","captures":[],"refunds":[]}`:               "authorized",
		`{"id":"p","status":"authorized","amount":"1","is_expired":true}`:                        "auth_expired",
		`{"id":"p","status":"authorized","amount":"1","captures":[{"amount":"1"}],"refunds":[]}`: "captured",
		`{"id":"p","status":"closed","amount":"1","captures":[{}],"refunds":[{"amount":"1"}]}`:   "refunded",
		`{"id":"p","status":"rejected","amount":"1"}`:                                            "rejected",
		`{"dispute_id":"d","payment_id":"p","status":"challenged","amount":"1"}`:                 "challenged",
	} {
		if got := Classify([]byte(body)).Event; got != want {
			t.Errorf("%s: event %q, want %q", body, got, want)
		}
	}
}
