package replay

import (
	"strings"
	"testing"
)

// Each request is replayed with credentials of the kind it was recorded
// with, never a better one: no key, no Bearer key, a key the service did
// not know, another region's, another merchant's (the sandbox's refusal
// of a webhook on loopback is in testdata/script/sandbox_verify_flows);
// and a masked webhook
// header value as one the service judges alike (an over-long one stays
// refused).
func TestVerifyKeepsTheCredentialsKind(t *testing.T) {
	s := newStudio(t, nil)
	_, c := s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "K-1"))
	p := str(c, "payment", "id")
	want := []int{
		s.status("GET", "/api/v2/payments/"+p, ""),                               // no key
		s.status("GET", "/api/v2/payments/"+p, "", "Authorization", "Basic abc"), // no Bearer key
		s.status("GET", "/api/v2/payments/"+p, "sk_test_nobody_0000"),            // unknown
		s.status("GET", "/api/v2/payments", "sk_ae_nobody_live_0000"),            // unknown live
		s.status("GET", "/api/v2/payments", "sk_test_sa_sandbox"),                // another region's
		s.status("GET", "/api/v2/payments/"+p, "sk_test_kw_sandbox"),             // another merchant's
		s.status("POST", "/api/v1/dispute-webhooks", liveKey, "X-Merchant-Code", "ae-sandbox", "body",
			`{"url":"https://shop.example-store.com/d","header":{"title":"X-Sig","value":"`+strings.Repeat("v", 1030)+`"}}`),
		s.status("POST", "/api/v1/dispute-webhooks", liveKey, "X-Merchant-Code", "ae-sandbox", "body",
			`{"url":"https://shop.example-store.com/d","header":{"title":"X-Sig","value":"signing-value-123456"}}`),
	}
	if itoaList(want) != "401,401,401,401,403,404,400,200" {
		t.Fatalf("recorded statuses %v", want)
	}
	rec := s.recording()
	if !strings.Contains(string(rec.Exchanges[len(rec.Exchanges)-2].body()), `"****vvvv"`) {
		t.Fatalf("the over-long header value was not recorded masked: %s", rec.Exchanges[len(rec.Exchanges)-2].body())
	}
	rep := verify(t, rec)
	if len(rep.Differences) != 0 || rep.Compared != len(want)+1 {
		t.Errorf("compared %d of %d:%s", rep.Compared, len(want)+1, describe(rep.Differences))
	}
}

func itoaList(v []int) string {
	var b strings.Builder
	for i, n := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(itoa(n))
	}
	return b.String()
}

// status makes one call through the proxy and answers its status; the
// pairs after key are headers, or "body" and a raw JSON body.
func (s *studio) status(method, path, key string, pairs ...string) int {
	s.t.Helper()
	var body any
	var header []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i] == "body" {
			body = pairs[i+1]
			continue
		}
		header = append(header, pairs[i], pairs[i+1])
	}
	st, _ := s.call(method, path, key, body, header...)
	return st
}

// A rejection the recording shows on a read, which later answers rule
// out (the payment is captured after it), is not played as the
// customer's move: it is reported at that read, where the service said
// it, and nowhere else.
func TestVerifyReportsAnImpossibleStatusWhereTheServiceSaidIt(t *testing.T) {
	s := newStudio(t, nil)
	_, c := s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "REJ-1"))
	p := str(c, "payment", "id")
	s.customer("/_sandbox/payments/"+p+"/approve", nil)
	s.call("GET", "/api/v2/payments/"+p, testKey, nil)
	s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": "100.00", "reference_id": "c"})
	rec := s.recording()
	read := rec.Exchanges[1]
	read.Answer = []byte(strings.Replace(string(read.answer()), `"status":"AUTHORIZED"`, `"status":"REJECTED"`, 1))
	rep := verify(t, rec)
	if len(rep.Differences) != 1 || rep.Differences[0].N != read.N || rep.Differences[0].Field != "$.status" {
		t.Errorf("want one difference, at #%d $.status:%s", read.N, describe(rep.Differences))
	}
}

// A recording's head may name another region than the service's (a CLI
// given only a base URL takes ae for any): the currency the service took
// in a checkout tells the region, of the sandbox and of the merchant.
func TestVerifyRegionOfTheCurrencyTaken(t *testing.T) {
	s := newStudio(t, nil)
	_, c := s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "REG-1"))
	s.call("GET", "/api/v2/payments/"+str(c, "payment", "id"), testKey, nil)
	rec := s.recording()
	rec.Meta.Region = "sa"
	if got := Region(rec); got != "ae" {
		t.Fatalf("region %q, want ae: the service took AED", got)
	}
	if rep := verify(t, rec); len(rep.Differences) != 0 || rep.Compared != 2 {
		t.Fatalf("compared %d, differences:%s", rep.Compared, describe(rep.Differences))
	}
}
