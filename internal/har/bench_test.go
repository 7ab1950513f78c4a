package har

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRecorder measures what the proxy adds to an exchange: the same
// request (a 1 kB JSON answer) straight to the server and through a
// recorder writing every exchange to its file.
func BenchmarkRecorder(b *testing.B) {
	answer := `{"payment":"` + strings.Repeat("x", 1000) + `"}`
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	defer upstream.Close()
	get := func(b *testing.B, base string) {
		client := &http.Client{}
		for b.Loop() {
			req, _ := http.NewRequest("GET", base+"/api/v2/payments/x", nil)
			req.Header.Set("Authorization", "Bearer sk_test_ae_sandbox")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	b.Run("direct", func(b *testing.B) { get(b, upstream.URL) })
	b.Run("recorded", func(b *testing.B) {
		w, err := OpenWriter(filepath.Join(b.TempDir(), "bench.har"), LogMeta{}, "bench", 0)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		u, _ := url.Parse(upstream.URL)
		proxy := httptest.NewServer(&Recorder{Upstream: u, Transport: upstream.Client().Transport, Writer: w, Scrubber: NewScrubber(nil)})
		defer proxy.Close()
		get(b, proxy.URL)
	})
}
