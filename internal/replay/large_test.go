package replay

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// largeRecording is the examples' recording with its entries repeated
// until the file holds about size bytes.
func largeRecording(b *testing.B, size int) []byte {
	_, data := recordExamplesFile(b)
	doc, err := har.Parse("examples.har", data)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	meta, _ := json.Marshal(doc.Log.Bnpl)
	buf.WriteString(`{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"_bnpl":` + string(meta) + `,"entries":[`)
	for n := 0; buf.Len() < size; n++ {
		for _, e := range doc.Log.Entries {
			if n > 0 || buf.Bytes()[buf.Len()-1] != '[' {
				buf.WriteByte(',')
			}
			line, _ := json.Marshal(e)
			buf.Write(line)
		}
	}
	buf.WriteString("]}}")
	return buf.Bytes()
}

// BenchmarkLoadLarge reads a 32 MB recording as sandbox verify does, and
// reports what the loaded recording keeps in memory: per entry
// (kept-B/entry) and per byte of the file (kept-B/file-B). Its bodies are
// in the spool, so what stays is the per-entry index (ids, times, status,
// the few headers a replay uses); a recording that kept its bodies would
// keep about a byte per byte of the file.
func BenchmarkLoadLarge(b *testing.B) {
	doc := largeRecording(b, 32<<20)
	var kept uint64
	entries := 0
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rec, err := LoadFrom("large.har", bytes.NewReader(doc), LoadOptions{Limits: har.Limits{MaxEntries: 1 << 30}})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept, entries = 0, rec.Entries
		if after.HeapAlloc > before.HeapAlloc {
			kept = after.HeapAlloc - before.HeapAlloc
		}
		runtime.KeepAlive(rec)
		rec.Close()
	}
	b.SetBytes(int64(len(doc)))
	b.ReportMetric(float64(kept)/float64(entries), "kept-B/entry")
	b.ReportMetric(float64(kept)/float64(len(doc)), "kept-B/file-B")
}
