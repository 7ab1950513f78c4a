//go:build race

package store

import (
	"fmt"
	"reflect"
)

// verifyRecordCache: in race builds (the tests in CI) every record the
// cache answers is checked against a decode of its doc.
const verifyRecordCache = true

// mustDecodeAlike panics unless rec is what DecodeRecord answers of doc.
func mustDecodeAlike(rec *Record, doc []byte, id string) {
	want, err := DecodeRecord(doc, "id", id)
	if err != nil {
		panic(fmt.Sprintf("record cache: payment %s: cached a doc that does not decode: %v", id, err))
	}
	if path, ok := alike(reflect.ValueOf(rec).Elem(), reflect.ValueOf(want).Elem(), "record"); !ok {
		panic(fmt.Sprintf("record cache: payment %s: the cached record differs from its doc's decoding at %s", id, path))
	}
}
