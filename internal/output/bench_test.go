package output

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"
)

// records makes n distinct payments shaped like the fixture.
func records(n int) []json.RawMessage {
	recs := make([]json.RawMessage, n)
	for i := range recs {
		recs[i] = json.RawMessage(fmt.Sprintf(
			`{"id":"pay-%06d","status":"AUTHORIZED","amount":"%d.50","currency":"AED","order":{"reference_id":"ORD-%d"},"captures":[{"id":"c","amount":"1.00"}],"extra":{"k":[1,2,3]}}`,
			i, i, i))
	}
	return recs
}

func streamAll(tb testing.TB, format string, recs []json.RawMessage) {
	ios, _, _, _ := Test()
	ios.Out = io.Discard
	p, err := NewPrinter(ios, Options{Format: format})
	if err != nil {
		tb.Fatal(err)
	}
	writeStream(tb, p.Stream(paymentColumns()), recs)
}

// writeStream writes recs to s and closes it.
func writeStream(tb testing.TB, s *Stream, recs []json.RawMessage) {
	tb.Helper()
	for _, r := range recs {
		if err := s.Write(r); err != nil {
			tb.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		tb.Fatal(err)
	}
}

func benchmarkStream(b *testing.B, format string) {
	recs := records(10000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		streamAll(b, format, recs)
	}
	b.ReportMetric(float64(testing.AllocsPerRun(1, func() { streamAll(b, format, recs) }))/float64(len(recs)), "allocs/record")
}

func BenchmarkStreamJSONL(b *testing.B) { benchmarkStream(b, "jsonl") }
func BenchmarkStreamTSV(b *testing.B)   { benchmarkStream(b, "tsv") }
func BenchmarkStreamCSV(b *testing.B)   { benchmarkStream(b, "csv") }
func BenchmarkStreamJSON(b *testing.B)  { benchmarkStream(b, "json") }

// TestStreamAllocationsFlat shows that a stream's cost per record does not
// grow with the number of records: nothing is kept once written.
func TestStreamAllocationsFlat(t *testing.T) {
	small, large := records(1000), records(10000)
	for _, format := range []string{"jsonl", "tsv", "csv", "json"} {
		perSmall := testing.AllocsPerRun(3, func() { streamAll(t, format, small) }) / float64(len(small))
		perLarge := testing.AllocsPerRun(3, func() { streamAll(t, format, large) }) / float64(len(large))
		if perLarge > perSmall*1.1+0.1 {
			t.Errorf("%s: %.2f allocs/record over 10000 records, %.2f over 1000: memory grows with the stream", format, perLarge, perSmall)
		}
		if (format == "jsonl" || format == "json") && !raceEnabled {
			if perLarge > 0.1 {
				t.Errorf("%s: %.2f allocs/record; the raw bytes should pass through without allocating", format, perLarge)
			}
		}
	}
}
