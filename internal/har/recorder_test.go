package har

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The app sees exactly what the upstream answered (status, headers, every
// byte of a body larger than the bound), from many requests at once, and
// the file keeps one entry per exchange with the bodies cut at the bound.
func TestRecorderPassesAnswersThroughUnderConcurrency(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789"), 10_000) // 100 kB
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Upstream", "yes")
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/api/big") {
			w.WriteHeader(http.StatusTeapot)
			w.Write(big)
			return
		}
		fmt.Fprintf(w, `{"path":%q,"query":%q,"got":%d,"auth":%q}`, r.URL.Path, r.URL.RawQuery, len(body), r.Header.Get("Authorization"))
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL + "/base")
	path := filepath.Join(t.TempDir(), "rec.har")
	w, err := OpenWriter(path, LogMeta{Region: "ae"}, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec := &Recorder{Upstream: u, Transport: upstream.Client().Transport, Writer: w, Scrubber: NewScrubber(nil), MaxBody: 4096,
		Record: func(p string) bool { return !strings.HasPrefix(p, "/_sandbox/") }}
	proxy := httptest.NewServer(rec)
	defer proxy.Close()

	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			p := "/api/item"
			if i%4 == 0 {
				p = "/api/big"
			}
			req, _ := http.NewRequest("POST", fmt.Sprintf("%s%s?i=%d", proxy.URL, p, i), strings.NewReader(strings.Repeat("x", i*300)))
			req.Header.Set("Authorization", "Bearer sk_test_ae_sandbox")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.Header.Get("X-Upstream") != "yes" {
				t.Errorf("request %d: the upstream's header did not reach the app", i)
			}
			if p == "/api/big" {
				if resp.StatusCode != http.StatusTeapot || !bytes.Equal(got, big) {
					t.Errorf("request %d: status %d, %d bytes, want the upstream's 418 and all %d bytes", i, resp.StatusCode, len(got), len(big))
				}
				return
			}
			want := fmt.Sprintf(`{"path":"/base/api/item","query":"i=%d","got":%d,"auth":"Bearer sk_test_ae_sandbox"}`, i, i*300)
			if string(got) != want {
				t.Errorf("request %d: got %s, want %s", i, got, want)
			}
		}(i)
	}
	wg.Wait()
	resp, err := http.Get(proxy.URL + "/_sandbox/clock")
	if err == nil {
		resp.Body.Close()
	}
	data, _ := os.ReadFile(path)
	doc, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.Log.Entries); n != 40 {
		t.Fatalf("%d entries, want 40 (the /_sandbox/ request is forwarded, not recorded)", n)
	}
	for _, e := range doc.Log.Entries {
		if strings.HasSuffix(e.Request.URL, "/api/big") {
			if !e.Truncated("response") || len(e.Response.Content.Text) > 4096 || e.Response.BodySize != len(big) {
				t.Errorf("a big answer: truncated %v, kept %d bytes, size %d", e.Truncated("response"), len(e.Response.Content.Text), e.Response.BodySize)
			}
		}
		if strings.Contains(string(mustJSON(t, e)), "sk_test_ae_sandbox") {
			t.Errorf("the key reached the file: %s", mustJSON(t, e))
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An upstream that cannot be reached: the app gets a 502, the file keeps
// the request with no answer.
func TestRecorderUpstreamDown(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	u, _ := url.Parse(dead.URL)
	dead.Close()
	path := filepath.Join(t.TempDir(), "rec.har")
	w, _ := OpenWriter(path, LogMeta{}, "test", 0)
	defer w.Close()
	proxy := httptest.NewServer(&Recorder{Upstream: u, Transport: http.DefaultTransport, Writer: w, Scrubber: NewScrubber(nil)})
	defer proxy.Close()
	resp, err := http.Get(proxy.URL + "/api/v2/payments")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d, want 502", resp.StatusCode)
	}
	data, _ := os.ReadFile(path)
	doc, _ := Parse(path, data)
	if len(doc.Log.Entries) != 1 || doc.Log.Entries[0].Response.Status != 0 {
		t.Errorf("want one entry with no answer (status 0), got %+v", doc.Log.Entries)
	}
}
