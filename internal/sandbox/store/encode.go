package store

import (
	"encoding/json"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// encodeRecord answers a record's stored doc (the bytes json.Marshal(r)
// answers) and its payment's view, marshalling the payment once.
func encodeRecord(r *Record) (doc, view []byte, err error) {
	view, err = marshalPayment(&r.Payment)
	if err != nil {
		return nil, nil, err
	}
	tail, err := json.Marshal(&r.Session)
	if err != nil {
		return nil, nil, err
	}
	const head = `{"payment":`
	doc = make([]byte, 0, len(head)+len(view)+len(tail))
	doc = append(append(append(doc, head...), view...), ',')
	doc = append(doc, tail[1:]...) // tail is an object with at least its session_id
	return doc, view, nil
}

// storedPayment is a payment as a stored doc holds it: wire.Payment's
// fields without its UnmarshalJSON, which validates and copies the
// payment's bytes again for Raw (the service's answer as the client read
// it; the sandbox never asks for it).
type storedPayment wire.Payment

// storedRecord is a stored doc as DecodeRecord reads it: the fields of
// Record, the payment's decoded in the same pass as the rest.
type storedRecord struct {
	Payment storedPayment `json:"payment"`
	Session
}
