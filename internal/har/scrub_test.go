package har

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// No key and no webhook header value reaches an entry: not in a header,
// not in a registration body, not echoed in an answer, not in a
// notification's header, not inside a JSON string.
func TestScrubberMasksEverySecret(t *testing.T) {
	const key = "sk_test_0123456789abcdefwxyz"
	const hookValue = "hook-secret-5f3a9c1e77"
	const listenValue = "listen-secret-0b1c2d3e4f"
	s := NewScrubber(nil, listenValue)
	reg := s.Entry(Exchange{Started: time.Now(), Method: "POST", URL: "https://api.tabby.ai/api/v1/dispute-webhooks",
		ReqHeader: http.Header{"Authorization": {"Bearer " + key}, "X-Merchant-Code": {"shop"}, "Content-Type": {"application/json"},
			"Cookie": {"session=abcdef123456"}, "X-Custom-Token": {"opaque-value-991"}},
		ReqBody: []byte(`{"url":"https://shop.example/hooks","header":{"title":"X-Hook","value":"` + hookValue + `"}}`),
		Status:  200, RespHeader: http.Header{"Content-Type": {"application/json"}},
		RespBody: []byte(`{"id":"x","echo":"` + hookValue + `","nested":"{\"k\":\"` + key + `\"}","header":{"title":"X-Hook","value":"****9c1e"}}`)})
	note := s.Entry(Exchange{Kind: KindNotification, Started: time.Now(), Method: "POST", URL: "http://127.0.0.1:8787/hooks",
		ReqHeader: http.Header{"X-Hook": {hookValue}, "X-Bnpl-Listen": {listenValue}, "User-Agent": {"svc/1"}},
		ReqBody:   []byte(`{"id":"p","status":"authorized","note":"` + listenValue + `"}`), Status: 200, RespHeader: http.Header{}})
	for _, e := range []Entry{reg, note} {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, secret := range []string{key, hookValue, listenValue, "abcdef123456", "opaque-value-991", "0123456789abcdef"} {
			if strings.Contains(text, secret) {
				t.Errorf("%q reached the entry: %s", secret, text)
			}
		}
	}
	if got := Header(reg.Request.Headers, "Authorization"); got != "Bearer sk_test_****wxyz" {
		t.Errorf("Authorization recorded as %q, want the masked key", got)
	}
	if got := Header(reg.Request.Headers, "X-Merchant-Code"); got != "shop" {
		t.Errorf("X-Merchant-Code recorded as %q: it is not secret and verify needs it", got)
	}
	if !strings.Contains(reg.Response.Content.Text, `"value":"****9c1e"`) {
		t.Errorf("the service's own mask was masked again: %s", reg.Response.Content.Text)
	}
	if got := Header(note.Request.Headers, "User-Agent"); got != "svc/1" {
		t.Errorf("User-Agent recorded as %q", got)
	}
}

func TestScrubberWithholdsACutJSONBody(t *testing.T) {
	s := NewScrubber(nil)
	got := string(s.Body([]byte(`{"header":{"title":"X","value":"secret-secret-secret"`), true))
	if strings.Contains(got, "secret-secret") || !strings.Contains(got, "withheld") {
		t.Errorf("a cut JSON body was kept: %s", got)
	}
}

func TestRedactorStandsInConsistently(t *testing.T) {
	r := NewRedactor([]byte("0123456789abcdef0123456789abcdef"))
	s := NewScrubber(r)
	body := []byte(`{"payment":{"buyer":{"name":"Layla Hassan","email":"layla@mail.ae","phone":"+971501234567","dob":"1991-04-02"},
		"shipping_address":{"city":"Dubai","address":"Villa 7, Street 12","zip":"00000"},
		"order_history":[{"buyer":{"name":"Layla Hassan","email":"layla@mail.ae","phone":"+971501234567"}},
		{"buyer":{"name":"Test","email":"otp.success@tabby.ai","phone":"+971500000001"}}]}}`)
	out := string(s.Body(body, false))
	for _, real := range []string{"Layla", "layla@mail.ae", "+971501234567", "Villa 7", "1991-04-02", "Dubai"} {
		if strings.Contains(out, real) {
			t.Errorf("%q was kept: %s", real, out)
		}
	}
	for _, kept := range []string{"otp.success@tabby.ai", "+971500000001"} {
		if !strings.Contains(out, kept) {
			t.Errorf("the test buyer's %q was replaced: %s", kept, out)
		}
	}
	var doc struct {
		Payment struct {
			Buyer   struct{ Name, Email, Phone, Dob string }
			History []struct {
				Buyer struct{ Name, Email, Phone string }
			} `json:"order_history"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	b, h := doc.Payment.Buyer, doc.Payment.History[0].Buyer
	if b.Name != h.Name || b.Email != h.Email || b.Phone != h.Phone {
		t.Errorf("one buyer got two stand-ins: %+v and %+v", b, h)
	}
	if !strings.HasPrefix(b.Phone, "+971") || len(b.Phone) != len("+971501234567") || !strings.Contains(b.Email, "@") || len(b.Dob) != 10 {
		t.Errorf("a stand-in lost its shape: %+v", b)
	}
	again := string(NewScrubber(NewRedactor([]byte("0123456789abcdef0123456789abcdef"))).Body(body, false))
	if again != out {
		t.Error("the same key gave other stand-ins in another scrubber (another process)")
	}
}

// Credentials however spaced (a tab, several spaces) are learnt whole and
// masked where an answer echoes them; the key id is still given.
func TestScrubberLearnsOddlySpacedCredentials(t *testing.T) {
	for _, auth := range []string{"Token\topaque-credential-77", "Token   opaque-credential-77", "Bearer \t sk_test_0123456789abcdefwxyz"} {
		s := NewScrubber(nil)
		e := s.Entry(Exchange{Started: time.Now(), Method: "GET", URL: "https://api.tabby.ai/api/v2/payments",
			ReqHeader: http.Header{"Authorization": {auth}}, Status: 200,
			RespHeader: http.Header{"Content-Type": {"text/plain"}}, RespBody: []byte("you sent " + strings.Fields(auth)[1])})
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), strings.Fields(auth)[1]) {
			t.Errorf("%q: the credential reached the entry: %s", auth, b)
		}
		if e.Bnpl.KeyID == "" {
			t.Errorf("%q: no key id", auth)
		}
	}
}
