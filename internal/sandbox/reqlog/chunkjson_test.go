package reqlog

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// What appendChunk writes reads back as the entries it was given, and
// says what json.Marshal says of them, strings of every kind included.
func TestChunkJSONReadsBackAsMarshalled(t *testing.T) {
	at := time.Date(2026, 11, 27, 23, 50, 1, 123456789, time.UTC)
	odd := []string{"", "plain", `quote " and \ backslash`, "line\nbreak\r\ttab", "\x00\x01\x1f\x7f",
		"é ü 日本 🙂", "bad \xff\xfe utf-8", "\u2028\u2029", "<script>&amp;</script>", "sk_test_****abcd"}
	var entries []storedEntry
	for i, s := range odd {
		entries = append(entries, storedEntry{
			LogEntry: LogEntry{Seq: int64(i), At: at.Add(time.Duration(i) * time.Millisecond), Region: "ae",
				MerchantCode: s, Mode: s, Key: s, Method: "GET", Path: "/api/v2/payments/" + s, Status: 200 + i,
				ErrorType: s, Error: s, LatencyMS: float64(i) * 0.137, RequestBody: s, ResponseBody: s, Truncated: i%2 == 1,
				Fault: s, Committed: 200 * (i % 2)},
			RequestHash: s, ResponseHash: s, RequestText: i, ResponseText: 3 * i,
		})
	}
	entries = append(entries, storedEntry{LogEntry: LogEntry{LatencyMS: 1e-7}}, storedEntry{LogEntry: LogEntry{LatencyMS: 123456789.5}})

	ours := appendChunk(nil, entries)
	theirs, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	var fromOurs, fromTheirs []storedEntry
	if err := json.Unmarshal(ours, &fromOurs); err != nil {
		t.Fatalf("%v in %s", err, ours)
	}
	if err := json.Unmarshal(theirs, &fromTheirs); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromOurs, fromTheirs) {
		t.Errorf("appendChunk reads back as\n%+v\njson.Marshal as\n%+v", fromOurs, fromTheirs)
	}
	// Field for field, the same document (encoding/json escapes <, >, &
	// and U+2028/9 for HTML, which a reader undoes).
	var a, b any
	json.Unmarshal(ours, &a)
	json.Unmarshal(theirs, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the documents differ:\n%s\n%s", ours, theirs)
	}
	if !json.Valid(ours) || bytes.Contains(ours, []byte("\n")) {
		t.Errorf("not one line of valid JSON: %s", ours)
	}
}
