package store

import (
	"encoding/json"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// encodeRecord answers the two parts a record is stored in: its
// payment's view (json.Marshal of the payment) and its session (json.Marshal
// of the Session, an object with at least its session_id), each marshalled
// once. The record's doc, the bytes json.Marshal(r) answers, is the two
// joined (joinDoc), as the state computes it when doc is read.
func encodeRecord(r *Record) (view, session []byte, err error) {
	view, session, _, err = encodeRecordAfter(r, nil, nil)
	return view, session, err
}

// encodeRecordAfter is encodeRecord after a move, with where the payment's
// last view held its moves (nil when not known) and the record as that
// view was stored with (found, a shallow copy made before the move; nil
// when not known), and answers where this one holds them
// (marshalPaymentAfter). A session the move left as it found it is the
// one stored with that view, not encoded again.
func encodeRecordAfter(r *Record, prev *movesEncoding, found *Record) (view, session []byte, moves *movesEncoding, err error) {
	var foundPayment *wire.Payment
	if found != nil {
		foundPayment = &found.Payment
	}
	view, moves, err = marshalPaymentAfter(&r.Payment, prev, foundPayment)
	if err != nil {
		return nil, nil, nil, err
	}
	if prev != nil && prev.session != nil && found != nil && sameSession(&r.Session, &found.Session) {
		session = prev.session
		if verifyRecordCache {
			mustMarshalSessionAlike(session, &r.Session)
		}
	} else if session, err = json.Marshal(&r.Session); err != nil {
		return nil, nil, nil, err
	}
	if moves != nil {
		moves.session = session
	}
	return view, session, moves, nil
}

// sameSession tells whether s holds what was does: the same values and
// the same pointers, which a move never writes through (MoveFunc). Every
// field of Session is named here (TestSameSessionNamesEveryField).
func sameSession(s, was *Session) bool {
	return s.SessionID == was.SessionID && s.MerchantCode == was.MerchantCode && s.Region == was.Region && s.Lang == was.Lang &&
		s.MerchantURLs == was.MerchantURLs && s.Token == was.Token && s.SessionStatus == was.SessionStatus &&
		s.RejectionReason == was.RejectionReason && s.SessionExpiresAt == was.SessionExpiresAt &&
		s.AuthorizedAt == was.AuthorizedAt && s.AuthExpiresAt == was.AuthExpiresAt && s.ClosedAt == was.ClosedAt
}

// docHead is what a doc holds before its payment's view.
const docHead = `{"payment":`

// joinDoc answers the doc of a record stored as view and session.
func joinDoc(view, session []byte) []byte {
	doc := make([]byte, 0, docLen(view, session))
	doc = append(append(append(doc, docHead...), view...), ',')
	return append(doc, session[1:]...)
}

// docLen is the length of joinDoc(view, session).
func docLen(view, session []byte) int { return len(docHead) + len(view) + len(session) }

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
