package store

import (
	"encoding/json"
	"time"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// recordTail is a Record without its payment: the fields, tags and order
// of Record after Payment, which comes first. encodeRecord writes a doc
// around the payment's view, so that a write marshals the payment once;
// TestEncodeRecordIsMarshal holds the two forms equal.
type recordTail struct {
	SessionID        string             `json:"session_id"`
	MerchantCode     string             `json:"merchant_code"`
	Region           string             `json:"region"`
	Lang             string             `json:"lang"`
	MerchantURLs     *wire.MerchantURLs `json:"merchant_urls,omitempty"`
	Token            *string            `json:"token"`
	SessionStatus    string             `json:"session_status"`
	RejectionReason  string             `json:"rejection_reason,omitempty"`
	SessionExpiresAt time.Time          `json:"session_expires_at"`
	AuthorizedAt     *time.Time         `json:"authorized_at,omitempty"`
	AuthExpiresAt    *time.Time         `json:"auth_expires_at,omitempty"`
	ClosedAt         *time.Time         `json:"closed_at,omitempty"`
}

// encodeRecord answers a record's stored doc (the bytes json.Marshal(r)
// answers) and its payment's view, marshalling the payment once.
func encodeRecord(r *Record) (doc, view []byte, err error) {
	view, err = marshalPayment(&r.Payment)
	if err != nil {
		return nil, nil, err
	}
	tail, err := json.Marshal(&recordTail{
		SessionID: r.SessionID, MerchantCode: r.MerchantCode, Region: r.Region, Lang: r.Lang,
		MerchantURLs: r.MerchantURLs, Token: r.Token, SessionStatus: r.SessionStatus,
		RejectionReason: r.RejectionReason, SessionExpiresAt: r.SessionExpiresAt,
		AuthorizedAt: r.AuthorizedAt, AuthExpiresAt: r.AuthExpiresAt, ClosedAt: r.ClosedAt,
	})
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
	recordTail
}
