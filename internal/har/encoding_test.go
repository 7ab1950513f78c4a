package har

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// encode applies one content encoding, as a server would.
func encode(t testing.TB, name string, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	switch name {
	case "gzip", "x-gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "raw-deflate":
		w, err = flate.NewWriter(&buf, flate.DefaultCompression)
	case "br":
		w = brotli.NewWriter(&buf)
	case "zstd":
		w, err = zstd.NewWriter(&buf)
	default:
		t.Fatalf("no encoder for %s", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encodeAll applies encodings in the order a Content-Encoding lists them.
func encodeAll(t testing.TB, encodings string, b []byte) []byte {
	for _, name := range strings.Split(encodings, ",") {
		b = encode(t, strings.ToLower(strings.TrimSpace(name)), b)
	}
	return b
}

// noise is text that compresses poorly, so that a cut encoded body holds
// some of it.
func noise(n int) []byte {
	var b bytes.Buffer
	x := uint32(2463534242)
	for b.Len() < n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		fmt.Fprintf(&b, "%08x ", x)
	}
	return b.Bytes()[:n]
}

func TestDecodeBodyEveryEncodingWholeAndCut(t *testing.T) {
	plain := append([]byte("start whsec_Xk3 "), noise(20_000)...)
	for _, enc := range []string{"gzip", "x-gzip", "deflate", "br", "zstd", "gzip, br", "zstd,deflate", "identity", "GZIP"} {
		encoded := plain
		if enc != "identity" {
			encoded = encodeAll(t, enc, plain)
		}
		got, cut, err := DecodeBody(enc, encoded, 1<<20)
		if err != nil || cut || !bytes.Equal(got, plain) {
			t.Errorf("%s whole: %d bytes, cut %v, err %v; want the %d plain bytes", enc, len(got), cut, err, len(plain))
		}
		if enc == "identity" {
			continue
		}
		got, cut, err = DecodeBody(enc, encoded[:len(encoded)*2/3], 1<<20)
		if err != nil || !cut || !bytes.HasPrefix(plain, got) {
			t.Errorf("%s cut: %d bytes, cut %v, err %v; want a start of the plain body, marked cut", enc, len(got), cut, err)
		}
		got, cut, err = DecodeBody(enc, encoded, 1000)
		if err != nil || !cut || !bytes.Equal(got, plain[:1000]) {
			t.Errorf("%s over the limit: %d bytes, cut %v, err %v; want its first 1000 bytes, marked cut", enc, len(got), cut, err)
		}
	}
	raw := encode(t, "raw-deflate", plain)
	if got, cut, err := DecodeBody("deflate", raw, 1<<20); err != nil || cut || !bytes.Equal(got, plain) {
		t.Errorf("raw deflate: %d bytes, cut %v, err %v", len(got), cut, err)
	}
}

func TestDecodeBodyRefusesWhatItCannotRead(t *testing.T) {
	var ue *UndecodableError
	for _, tc := range []struct{ enc, body string }{
		{"compress", "anything"},
		{"gzip, snappy", "anything"},
		{"gzip", "this is not gzip at all"},
		{"zstd", "this is not zstd at all"},
		{"deflate", "\xff\xff\xff\xff not deflate"},
		{"br", "\xff\xff\xff\xff\xff\xff not brotli"},
	} {
		got, _, err := DecodeBody(tc.enc, []byte(tc.body), 1<<20)
		if !errors.As(err, &ue) || got != nil {
			t.Errorf("%s over %q: %q, %v; want nothing and an UndecodableError", tc.enc, tc.body, got, err)
		}
	}
}

// A signing value and a key sent and answered in every encoding, whole
// and cut at the bound, never reach the file in clear: each body is
// decoded, then masked; one that cannot be decoded is withheld.
func TestRecordingHoldsNoSecretWhateverTheEncoding(t *testing.T) {
	const key = "sk_test_ae_9f8e7d6c5b4a3f2e1d0c"
	const signing = "whsec_Zq81mVbT4xLp0Ya7Ck2Nw9Rf"
	reqJSON := []byte(`{"url":"https://shop.example/hook","header":{"title":"X-Hook-Sig","value":"` + signing + `"}}`)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		enc := r.URL.Query().Get("enc")
		var answer []byte
		switch r.URL.Query().Get("shape") {
		case "big":
			// Text larger than the bound, the secrets at its start.
			answer = append([]byte("echo "+signing+" "+key+" "), noise(64<<10)...)
			w.Header().Set("Content-Type", "text/plain")
		case "garbage":
			answer = []byte("not " + enc + " " + signing)
			w.Header().Set("Content-Encoding", enc)
			w.Write(answer)
			return
		default:
			answer = []byte(`{"id":"hook_1","header":{"title":"X-Hook-Sig","value":"` + signing + `"},"echo":"` + key + `"}`)
			w.Header().Set("Content-Type", "application/json")
		}
		w.Header().Set("Content-Encoding", enc)
		w.Write(encodeAll(t, enc, answer))
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	path := filepath.Join(t.TempDir(), "rec.har")
	w, err := OpenWriter(path, LogMeta{}, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec := &Recorder{Upstream: u, Transport: upstream.Client().Transport, Writer: w, Scrubber: NewScrubber(nil), MaxBody: 16 << 10}
	proxy := httptest.NewServer(rec)
	defer proxy.Close()

	send := func(enc, shape string) {
		body := reqJSON
		if enc != "snappy" {
			body = encodeAll(t, enc, reqJSON)
		}
		req, _ := http.NewRequest("POST", proxy.URL+"/api/v1/webhooks?enc="+url.QueryEscape(enc)+"&shape="+shape, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", enc)
		req.Header.Set("Accept-Encoding", enc)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	encodings := []string{"gzip", "x-gzip", "deflate", "br", "zstd", "gzip, br"}
	for _, enc := range encodings {
		send(enc, "json")
		send(enc, "big")
	}
	send("zstd", "garbage")
	send("snappy", "garbage")

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{signing, key, signing[6:], key[len("sk_test_"):]} {
		if bytes.Contains(raw, []byte(s)) {
			t.Errorf("the recording holds %q in clear", s)
		}
	}
	doc, err := Parse(path, raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Log.Entries) != 2*len(encodings)+2 {
		t.Fatalf("%d entries, want %d", len(doc.Log.Entries), 2*len(encodings)+2)
	}
	for _, e := range doc.Log.Entries {
		q, _ := url.ParseQuery(strings.SplitN(e.Request.URL, "?", 2)[1])
		what := q.Get("enc") + "/" + q.Get("shape")
		for _, body := range [][]byte{e.RequestBody(), e.ResponseBody()} {
			for _, s := range []string{signing, key} {
				if bytes.Contains(body, []byte(s)) {
					t.Errorf("%s: a decoded body holds %q", what, s)
				}
			}
		}
		if q.Get("enc") == "snappy" {
			if !e.Withheld("request") {
				t.Errorf("%s: a request body in an unknown encoding is not withheld", what)
			}
		} else if e.Request.PostData == nil || e.Request.PostData.Encoding != "" || !strings.Contains(e.Request.PostData.Text, `"title":"X-Hook-Sig"`) {
			t.Errorf("%s: the request body is not kept decoded: %+v", what, e.Request.PostData)
		}
		resp := string(e.ResponseBody())
		switch q.Get("shape") {
		case "json":
			if !strings.Contains(resp, `"id":"hook_1"`) || e.Response.Content.Encoding != "" {
				t.Errorf("%s: the answer is not kept decoded: %q", what, resp)
			}
		case "big":
			// zstd decodes a block whole: of a one-block answer cut
			// at the bound, nothing can be read.
			start := strings.HasPrefix(resp, "echo ****") || (q.Get("enc") == "zstd" && resp == "")
			if !start || !e.Truncated("response") || len(resp) > 16<<10 {
				t.Errorf("%s: the cut answer is not its decoded start, masked and marked cut (%d bytes): %.60q", what, len(resp), resp)
			}
		case "garbage":
			if !e.Withheld("response") || !strings.HasPrefix(resp, "(withheld: ") || !strings.Contains(e.Comment, "withheld") {
				t.Errorf("%s: an undecodable answer is not withheld with a note: %q (%s)", what, resp, e.Comment)
			}
		}
	}
}
