package replay

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// asBrowserHAR turns a recording bnpl made into one as a browser or a
// proxy writes it: no bnpl fields, pages, HTTP/2 pseudo-headers, answers
// and requests kept gzip-compressed in base64, and other traffic around the service's
// (another host's /api/, the service host's own page).
func asBrowserHAR(t *testing.T, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc har.File
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	target := doc.Log.Bnpl.Target
	doc.Log.Bnpl = nil
	doc.Log.Creator = har.Creator{Name: "WebInspector", Version: "537.36"}
	doc.Log.Pages = json.RawMessage(`[{"startedDateTime":"2026-01-01T00:00:00Z","id":"page_1","title":"shop","pageTimings":{}}]`)
	var out []har.Entry
	for _, e := range doc.Log.Entries {
		e.Bnpl = nil
		e.Request.Headers = append([]har.NameValue{{Name: ":method", Value: e.Request.Method}, {Name: ":authority", Value: strings.TrimPrefix(target, "http://")}}, e.Request.Headers...)
		if text := e.Response.Content.Text; text != "" {
			e.Response.Content.Text, e.Response.Content.Encoding = gzipBase64(text), "base64"
			e.Response.Headers = append(e.Response.Headers, har.NameValue{Name: "Content-Encoding", Value: "gzip"})
		}
		// An app that compresses what it sends: the body kept as sent.
		if p := e.Request.PostData; p != nil && p.Text != "" {
			post := *p
			post.Text, post.Encoding = gzipBase64(p.Text), "base64"
			e.Request.PostData = &post
			e.Request.Headers = append(e.Request.Headers, har.NameValue{Name: "Content-Encoding", Value: "gzip"})
		}
		out = append(out, e)
		other := e
		other.Request.URL = strings.Replace(e.Request.URL, target, "https://analytics.example.net", 1)
		page := e
		page.Request.URL, page.Request.Method = target+"/checkout/page", "GET"
		out = append(out, other, page)
	}
	doc.Log.Entries = out
	b, _ := json.Marshal(doc)
	return b
}

// gzipBase64 is text gzip-compressed, in base64.
func gzipBase64(text string) string {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte(text))
	w.Close()
	return base64.StdEncoding.EncodeToString(z.Bytes())
}

// A browser's HAR of the same traffic verifies as clean as bnpl's own,
// with the other host's and the page's entries left out and counted.
func TestVerifyReadsOtherToolsHAR(t *testing.T) {
	s := newStudio(t, nil)
	recordFlow(t, s)
	s.recording()
	data := asBrowserHAR(t, s.path)

	// Two hosts' /api/: which is the service's is asked for.
	_, err := LoadFrom("browser.har", bytes.NewReader(data), LoadOptions{})
	var nr *har.NotRecordingError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "name the service's with --host") {
		t.Fatalf("two hosts: %v", err)
	}
	host := strings.TrimPrefix(s.service.URL, "http://")
	rec, err := LoadFrom("browser.har", bytes.NewReader(data), LoadOptions{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	rep := verify(t, rec)
	if len(rep.Differences) != 0 || rep.Compared != 13 {
		t.Errorf("compared %d:%s", rep.Compared, describe(rep.Differences))
	}
	left := 0
	for _, l := range rec.LeftOut {
		left += l.Count
	}
	if rec.Entries != 39 || left != 26 || len(rec.Exchanges) != 13 {
		t.Errorf("%d entries: %d kept, %d left out %+v", rec.Entries, len(rec.Exchanges), left, rec.LeftOut)
	}
	for i, x := range rec.Exchanges {
		if b := x.body(); len(b) > 0 && (b[0] != '{' || x.Header.Get("Content-Encoding") != "") {
			t.Errorf("exchange %d: its gzip body is to be replayed decoded with no Content-Encoding, got %q %.20q", x.N, x.Header.Get("Content-Encoding"), b)
		}
		if x.N != 3*i+1 {
			t.Errorf("exchange %d numbered %d, want its place in the file %d", i, x.N, 3*i+1)
		}
	}
}

// A recording past --max-entries is refused, naming the bound and the
// flag, before anything is replayed.
func TestLoadBoundsEntries(t *testing.T) {
	doc := `{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[` + strings.Repeat(`{},`, 10) + `{}]}}`
	_, err := LoadFrom("many.har", strings.NewReader(doc), LoadOptions{Limits: har.Limits{MaxEntries: 10}})
	var le *har.LimitError
	if !errors.As(err, &le) || err.Error() != "many.har holds more than 10 entries, the most read" || !strings.Contains(le.Hint(), "--max-entries") {
		t.Fatalf("%v", err)
	}
	rec, err := LoadFrom("many.har", strings.NewReader(doc), LoadOptions{Limits: har.Limits{MaxEntries: 11}})
	if err != nil || rec.Entries != 11 || len(rec.Exchanges) != 0 {
		t.Fatalf("%v %+v", err, rec)
	}
	_, err = LoadFrom("big.har", strings.NewReader(doc), LoadOptions{Limits: har.Limits{MaxBytes: 20}})
	if !errors.As(err, &le) || le.What != "bytes" {
		t.Fatalf("%v", err)
	}
}
