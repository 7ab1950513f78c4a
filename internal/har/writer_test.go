package har

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func testEntry(i int) Entry {
	s := NewScrubber(nil)
	return s.Entry(Exchange{Started: time.Unix(1700000000, int64(i)*1000), Method: "GET",
		URL: fmt.Sprintf("https://api.example/api/v2/payments/%d", i), ReqHeader: http.Header{},
		Status: 200, RespHeader: http.Header{"Content-Type": {"application/json"}}, RespBody: []byte(`{"n":` + fmt.Sprint(i) + `}`)})
}

// Two writers on one file (a recorder and a listen, as two processes would
// hold it) and many goroutines each: every entry lands, and the file is
// one HAR document after all of them.
func TestWritersShareAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.har")
	a, err := OpenWriter(path, LogMeta{Region: "ae"}, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenWriter(path, LogMeta{Region: "sa"}, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Meta().Region != "ae" {
		t.Errorf("the second writer took meta %+v, want the file's own", b.Meta())
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			w := a
			if g%2 == 1 {
				w = b
			}
			for i := 0; i < 50; i++ {
				if err := w.Append(testEntry(g*100 + i)); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.Log.Entries); n != 400 {
		t.Fatalf("the file holds %d entries, want 400", n)
	}
	if a.Written()+b.Written() != 400 {
		t.Errorf("written %d+%d, want 400", a.Written(), b.Written())
	}
	for i := 1; i < len(doc.Log.Entries); i++ {
		if doc.Log.Entries[i].Started().Before(doc.Log.Entries[i-1].Started()) {
			t.Fatalf("entry %d starts before entry %d: Parse must order by start", i, i-1)
		}
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
}

func TestWriterBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.har")
	w, err := OpenWriter(path, LogMeta{}, "test", 2048)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var full int
	for i := 0; i < 50; i++ {
		if err := w.Append(testEntry(i)); errors.Is(err, ErrFull) {
			full++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	st, _ := os.Stat(path)
	if st.Size() > 2048 {
		t.Errorf("the file grew to %d bytes past its bound of 2048", st.Size())
	}
	if full == 0 || w.Dropped() != full || w.Written()+full != 50 {
		t.Errorf("written %d, dropped %d (ErrFull %d times), want the rest dropped", w.Written(), w.Dropped(), full)
	}
	data, _ := os.ReadFile(path)
	if !json.Valid(data) {
		t.Error("a bounded file is not one JSON document")
	}
}

func TestWriterRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"text.har":   "hello",
		"other.har":  `{"log":{"version":"1.2","creator":{"name":"Firefox","version":"1"},"entries":[]}}`,
		"edited.har": `{"log":{"version":"1.2","creator":{"name":"bnpl","version":"1"},"entries":[]}}`,
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o600)
		_, err := OpenWriter(path, LogMeta{}, "test", 0)
		var nr *NotRecordingError
		if !errors.As(err, &nr) {
			t.Errorf("%s: %v, want a NotRecordingError", name, err)
		}
	}
}
