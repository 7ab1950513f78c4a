package replay

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// The app replayed against the recording: its requests match, the
// customer's moves the recording shows are played (the app makes none),
// answers come from the sandbox with its own ids; a request the recording
// lacks and those the app did not make are differences.
func TestReplayServer(t *testing.T) {
	s := newStudio(t, nil)
	_, a := s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "R-1"))
	s.customer("/_sandbox/payments/"+str(a, "payment", "id")+"/approve", nil)
	s.call("POST", "/api/v2/payments/"+str(a, "payment", "id")+"/captures", testKey, map[string]any{"amount": "40.00", "reference_id": "c1"})
	_, b := s.call("POST", "/api/v2/checkout", testKey, checkout("50.00", "AED", "otp.success@tabby.ai", "+971500000001", "R-2"))
	s.customer("/_sandbox/payments/"+str(b, "payment", "id")+"/reject", nil)
	s.call("GET", "/api/v2/payments/"+str(b, "payment", "id"), testKey, nil)
	for range 4 {
		s.call("GET", "/api/v2/payments?limit=5", testKey, nil)
	}
	s.call("GET", "/api/v1/webhooks", testKey, nil)
	rec := s.recording()

	server, app := replayServer(t, rec, nil)
	call := func(method, path string, body any) map[string]any {
		_, out := appCall(t, app, method, path, "sk_test_the_apps_own_key_1234", body)
		return out
	}
	ra := call("POST", "/api/v2/checkout", checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "R-1"))
	if str(ra, "payment", "id") == str(a, "payment", "id") || str(ra, "payment", "id") == "" {
		t.Fatalf("the app got %v, want the sandbox's own payment", ra)
	}
	if got := call("POST", "/api/v2/payments/"+str(ra, "payment", "id")+"/captures", map[string]any{"amount": "40.00", "reference_id": "c1"}); str(got, "status") != "AUTHORIZED" {
		t.Errorf("the capture answered %v: the customer's approval was not played", got)
	}
	rb := call("POST", "/api/v2/checkout", checkout("50.00", "AED", "otp.success@tabby.ai", "+971500000001", "R-2-changed"))
	if got := call("GET", "/api/v2/payments/"+str(rb, "payment", "id"), nil); str(got, "status") != "REJECTED" {
		t.Errorf("the read answered %v: the customer's rejection was not played", got)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); call("GET", "/api/v2/payments?limit=5", nil) }()
	}
	wg.Wait()
	call("GET", "/api/v1/disputes", nil) // not recorded
	select {
	case <-server.Done():
		t.Fatal("done before the app made every recorded request")
	default:
	}
	rep := server.Finish()
	var got []string
	for _, d := range rep.Differences {
		got = append(got, d.Kind+" "+d.Method+" "+Template(d.Path)+" "+d.Field+" "+d.Want+" "+d.Got)
	}
	want := []string{
		`value POST /api/v2/checkout $.payment.order.reference_id "R-2" "R-2-changed"`,
		`request GET /api/v1/webhooks request "GET /api/v1/webhooks" (absent)`,
		`request GET /api/v1/disputes request (absent) "GET /api/v1/disputes"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(rep.AnswerDifferences) != 0 {
		t.Errorf("the sandbox answered otherwise than itself:%s", describe(rep.AnswerDifferences))
	}
	if rep.Compared != 8 || rep.Exchanges != 9 || rep.Unexpected != 1 {
		t.Errorf("matched %d of %d, %d unexpected", rep.Compared, rep.Exchanges, rep.Unexpected)
	}
}

// headerTap records the Authorization header of every request that passes.
type headerTap struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen map[string]string // path -> Authorization
}

func (h *headerTap) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.seen[r.URL.Path] = r.Header.Get("Authorization")
	h.mu.Unlock()
	return h.next.RoundTrip(r)
}

// The app's key never reaches the sandbox: /_sandbox/ paths get none, the
// service's paths a key of the recorded kind; credentials of another kind
// than recorded are a difference, and go as what they are (an unknown
// live key is refused, as the service would refuse it).
func TestReplayNeverSendsTheAppsKey(t *testing.T) {
	s := newStudio(t, nil)
	_, a := s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "C-1"))
	s.call("GET", "/api/v2/payments/"+str(a, "payment", "id"), testKey, nil)
	rec := s.recording()
	tap := &headerTap{seen: map[string]string{}}
	server, app := replayServer(t, rec, func(target *Target) {
		tap.next = target.Client.Transport
		target.Client = &http.Client{Transport: tap}
	})
	call := func(method, path, key string, body any) (int, map[string]any) {
		return appCall(t, app, method, path, key, body)
	}
	const appKey = "sk_test_the_apps_own_key_1234"
	_, ra := call("POST", "/api/v2/checkout", appKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "C-1"))
	call("GET", "/_sandbox/clock", appKey, nil)
	if st, _ := call("GET", "/api/v2/payments/"+str(ra, "payment", "id"), "sk_live_bogus_0000", nil); st != http.StatusUnauthorized {
		t.Errorf("a bogus live key where a test key was recorded was answered %d, want 401", st)
	}
	for path, auth := range tap.seen {
		if strings.Contains(auth, "the_apps_own_key") || strings.Contains(auth, "bogus") {
			t.Errorf("%s reached the sandbox with the app's key %q", path, auth)
		}
	}
	if auth := tap.seen["/_sandbox/clock"]; auth != "" {
		t.Errorf("/_sandbox/clock got Authorization %q", auth)
	}
	rep := server.Finish()
	found := false
	for _, d := range rep.Differences {
		if d.Field == "header Authorization" && d.Want == `"a test key"` && d.Got == `"a live key"` {
			found = true
		}
	}
	if !found {
		t.Errorf("the live key where a test key was recorded is not a difference:%s", describe(rep.Differences))
	}
}

// Replay's counts add up to the file's entries as verify's do: the
// requests replayed, the notifications, and those left out by reason (a
// request the service never answered among them), whatever the app made.
func TestReplayCountsAddUp(t *testing.T) {
	s := newStudio(t, nil)
	_, a := s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "R-1"))
	s.call("GET", "/api/v2/payments/"+str(a, "payment", "id"), testKey, nil)
	scrub := har.NewScrubber(nil)
	base := s.service.URL
	for _, x := range []har.Exchange{
		{Kind: har.KindExchange, Method: "GET", URL: base + "/api/v1/webhooks", ReqHeader: http.Header{}, RespHeader: http.Header{}},
		{Kind: har.KindNotification, Method: "POST", URL: "http://127.0.0.1:9/hooks", ReqHeader: http.Header{}, RespHeader: http.Header{},
			ReqBody: []byte(`{"id":"` + str(a, "payment", "id") + `","status":"authorized"}`), Status: 200},
		{Kind: har.KindExchange, Method: "GET", URL: "https://elsewhere.example.com/api/v2/payments", ReqHeader: http.Header{}, RespHeader: http.Header{}, Status: 200},
		{Kind: har.KindExchange, Method: "GET", URL: base + "/_sandbox/clock", ReqHeader: http.Header{}, RespHeader: http.Header{}, Status: 200},
	} {
		x.Started = time.Now()
		if err := s.writer.Append(scrub.Entry(x)); err != nil {
			t.Fatal(err)
		}
	}
	rec := s.recording()
	server, app := replayServer(t, rec, nil)
	appCall(t, app, "POST", "/api/v2/checkout", "sk_test_the_apps_own_key_1234", checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "R-1"))
	rep := server.Finish()
	left := map[string]int{}
	sum := 0
	for _, l := range rep.LeftOut {
		left[l.Why] = l.Count
		sum += l.Count
	}
	if rep.Entries != 6 || rep.Exchanges != 2 || rep.Compared != 1 || rep.Notifications != 1 || left[NoAnswer] != 1 || sum != 3 {
		t.Fatalf("entries %d: %d replayed (%d made), %d notification(s), left out %v; want 6: 2 (1), 1, a request never answered, another host's and a /_sandbox/ path", rep.Entries, rep.Exchanges, rep.Compared, rep.Notifications, left)
	}
	if got := rep.Exchanges + rep.Notifications + sum; got != rep.Entries {
		t.Fatalf("the counts make %d, not the file's %d entries", got, rep.Entries)
	}
	if len(rep.Differences) != 1 || rep.Differences[0].Kind != DiffRequest {
		t.Fatalf("differences %s, want the one request the app did not make", describe(rep.Differences))
	}
}

// appCall makes a request of the app's, body as JSON and key as its
// bearer, to the replay server app, and answers its status and body.
func appCall(t *testing.T, app *httptest.Server, method, path, key string, body any) (int, map[string]any) {
	t.Helper()
	var in io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		in = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, app.URL+path, in)
	req.Header.Set("Authorization", "Bearer "+key)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// replayServer serves rec as sandbox replay does, against a fresh
// sandbox in memory (set up further by alter, when given), until the
// test ends.
func replayServer(t *testing.T, rec *Recording, alter func(*Target)) (*Server, *httptest.Server) {
	t.Helper()
	target, closeIt, err := Embedded(rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeIt)
	if alter != nil {
		alter(target)
	}
	server := NewEngine(rec, target).NewServer(t.Context())
	app := httptest.NewServer(server)
	t.Cleanup(app.Close)
	return server, app
}
