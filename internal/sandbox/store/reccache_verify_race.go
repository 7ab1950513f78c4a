//go:build race

package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// verifyRecordCache: in race builds (the tests in CI) every record the
// cache answers is checked against a decode of its doc, and every view
// encoded after a move's against json.Marshal.
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

// mustMarshalAlike panics unless view is what json.Marshal answers of p.
func mustMarshalAlike(view []byte, p *wire.Payment) {
	want, err := json.Marshal(p)
	if err != nil || !bytes.Equal(view, want) {
		panic(fmt.Sprintf("payment %s: its view, encoded after a move, is not its encoding (%v):\n%s\nwant\n%s", p.ID, err, view, want))
	}
}

// mustMarshalSessionAlike panics unless session is what json.Marshal
// answers of s.
func mustMarshalSessionAlike(session []byte, s *Session) {
	want, err := json.Marshal(s)
	if err != nil || !bytes.Equal(session, want) {
		panic(fmt.Sprintf("session %s: kept from before a move, it is not its encoding (%v):\n%s\nwant\n%s", s.SessionID, err, session, want))
	}
}
