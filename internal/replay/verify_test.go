package replay

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// alterService stands for a service that differs from the sandbox in three
// places, made on purpose: another error message (a capture of a payment
// not authorized), a field missing (is_test, from a payment read), and
// another status after an action (a close answered AUTHORIZED).
func alterService(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/captures") && rec.Code == http.StatusBadRequest:
			body = bytes.Replace(body, []byte("could not capture not authorized payments"), []byte("payment is not authorized"), 1)
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v2/payments/"):
			body = regexp.MustCompile(`"is_test":(true|false),`).ReplaceAll(body, nil)
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/close"):
			body = bytes.Replace(body, []byte(`"status":"CLOSED"`), []byte(`"status":"AUTHORIZED"`), 1)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

// recordFlow records a flow with the customer's moves made on the
// stand-in, out of the recording: an approval, a rejection, an abandoned
// checkout, an authorization that lapses.
func recordFlow(t *testing.T, s *studio) {
	_, c1 := s.call("POST", "/api/v2/checkout", testKey, checkout("250.00", "AED", "otp.success@tabby.ai", "+971500000001", "F-1"))
	p1 := str(c1, "payment", "id")
	if st, _ := s.call("POST", "/api/v2/payments/"+p1+"/captures", testKey, map[string]any{"amount": "10.00", "reference_id": "early"}); st != 400 {
		t.Fatalf("capture before approval: %d", st)
	}
	s.customer("/_sandbox/payments/"+p1+"/approve", nil)
	s.call("GET", "/api/v2/payments/"+p1, testKey, nil)
	s.call("POST", "/api/v2/payments/"+p1+"/captures", testKey, map[string]any{"amount": "100.00", "reference_id": "cap-1"})
	s.call("POST", "/api/v2/payments/"+p1+"/close", testKey, nil)
	s.call("POST", "/api/v2/payments/"+p1+"/refunds", testKey, map[string]any{"amount": "50.00", "reference_id": "ref-1", "reason": "late"})

	_, c2 := s.call("POST", "/api/v2/checkout", testKey, checkout("80.00", "AED", "otp.success@tabby.ai", "+971500000001", "F-2"))
	s.customer("/_sandbox/payments/"+str(c2, "payment", "id")+"/reject", nil)
	s.call("GET", "/api/v2/checkout/"+str(c2, "id"), testKey, nil)

	_, c3 := s.call("POST", "/api/v2/checkout", testKey, checkout("90.00", "AED", "otp.success@tabby.ai", "+971500000001", "F-3"))
	s.customer("/_sandbox/payments/"+str(c3, "payment", "id")+"/cancel", nil)
	s.call("GET", "/api/v2/payments/"+str(c3, "payment", "id"), testKey, nil)

	_, c4 := s.call("POST", "/api/v2/checkout", testKey, checkout("70.00", "AED", "otp.success@tabby.ai", "+971500000001", "F-4"))
	p4 := str(c4, "payment", "id")
	s.customer("/_sandbox/payments/"+p4+"/approve", nil)
	s.customer("/_sandbox/payments/"+p4+"/expire-auth", nil)
	if st, _ := s.call("POST", "/api/v2/payments/"+p4+"/close", testKey, nil); st != 400 {
		t.Fatalf("close after the authorization lapsed: %d", st)
	}
	s.call("GET", "/api/v2/payments", testKey, nil)
}

// verify finds exactly the differences made on purpose, and nothing else,
// after playing the customer's moves the recording shows.
func TestVerifyFindsExactlyTheDifferencesMadeOnPurpose(t *testing.T) {
	s := newStudio(t, alterService)
	recordFlow(t, s)
	rep := verify(t, s.recording())
	var got []string
	for _, d := range rep.Differences {
		got = append(got, d.Method+" "+Template(d.Path)+" "+d.Field+" "+d.Kind+" "+d.Want+" "+d.Got)
	}
	sort.Strings(got)
	want := []string{
		`GET /api/v2/payments/{id} $.is_test extra (absent) true`,
		`GET /api/v2/payments/{id} $.is_test extra (absent) true`,
		`POST /api/v2/payments/{id}/captures $.error value "payment is not authorized" "could not capture not authorized payments"`,
		`POST /api/v2/payments/{id}/close $.status value "AUTHORIZED" "CLOSED"`,
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences:\n%s\nwant:\n%s%s", strings.Join(got, "\n"), strings.Join(want, "\n"), describe(rep.Differences))
	}
	var actions []string
	for _, a := range rep.Actions {
		if a.Error != "" {
			t.Errorf("action %s before #%d failed: %s", a.Action, a.Before, a.Error)
		}
		actions = append(actions, a.Action)
	}
	if strings.Join(actions, ",") != "approve,reject,cancel,approve,expire-auth" {
		t.Errorf("customer's moves played: %v", actions)
	}
	if rep.Compared != rep.Exchanges || rep.Exchanges != 13 {
		t.Errorf("compared %d of %d exchanges, want 13 of 13; skipped %+v", rep.Compared, rep.Exchanges, rep.Skipped)
	}
}

// The same recording against an unaltered stand-in verifies clean, and
// against a running sandbox reached over HTTP (--sandbox-url) too.
func TestVerifyCleanRecording(t *testing.T) {
	s := newStudio(t, nil)
	recordFlow(t, s)
	rec := s.recording()
	if rep := verify(t, rec); len(rep.Differences) != 0 {
		t.Errorf("a recording of the sandbox differs from the sandbox:%s", describe(rep.Differences))
	}
	other, err := sandbox.New(sandbox.Options{AllowLocalWebhooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	srv := httptest.NewServer(other.Handler("ae"))
	defer srv.Close()
	rep, err := NewEngine(rec, Remote(srv.URL, 0)).Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Differences) != 0 {
		t.Errorf("against a served sandbox:%s", describe(rep.Differences))
	}
}

// sk_test_ae_sandbox and sk_test_kw_sandbox are masked alike
// (sk_test_****dbox): each checkout goes as the merchant of its currency,
// each later request as the merchant that made its payment, and a list as
// the key's first merchant.
func TestVerifyTellsMerchantsWhoseKeysMaskAlike(t *testing.T) {
	s := newStudio(t, nil)
	_, ae := s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "AE-1"))
	kwBody := checkout("10.500", "KWD", "otp.success@tabby.ai", "+96590000001", "KW-1")
	kwBody["merchant_code"] = "kw-sandbox"
	_, kw := s.call("POST", "/api/v2/checkout", "sk_test_kw_sandbox", kwBody)
	for _, c := range []map[string]any{ae, kw} {
		s.customer("/_sandbox/payments/"+str(c, "payment", "id")+"/approve", nil)
	}
	s.call("POST", "/api/v2/payments/"+str(kw, "payment", "id")+"/captures", "sk_test_kw_sandbox", map[string]any{"amount": "10.500", "reference_id": "kw"})
	s.call("GET", "/api/v2/payments", testKey, nil)
	s.call("GET", "/api/v2/payments", "sk_test_kw_sandbox", nil)
	rep := verify(t, s.recording())
	if len(rep.Differences) != 0 || len(rep.Skipped) != 0 || rep.Compared != 5 {
		t.Errorf("compared %d:%s\nskipped %+v", rep.Compared, describe(rep.Differences), rep.Skipped)
	}
}
