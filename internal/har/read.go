package har

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// Parse reads a HAR document. Entries are put in the order their requests
// started (ties keep the file's order, which is the order they ended), so
// a request is never put before one that had ended when it began.
func Parse(name string, data []byte) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var doc File
	if err := dec.Decode(&doc); err != nil {
		return nil, &NotRecordingError{Path: name, Why: fmt.Sprintf("it is not a HAR file (%v)", err), Reading: true}
	}
	if doc.Log.Version == "" {
		return nil, &NotRecordingError{Path: name, Why: `it has no "log" with a version`, Reading: true}
	}
	sort.SliceStable(doc.Log.Entries, func(i, j int) bool {
		return doc.Log.Entries[i].Started().Before(doc.Log.Entries[j].Started())
	})
	return &doc, nil
}
