package store

import (
	"encoding/json"
	"reflect"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// A busy payment is mostly its captures and refunds (a payment captured
// eighty times is eighty of them), and every move writes the payment
// whole: by reflection, encoding them was the largest part of a move's
// own work. marshalPayment writes them by hand, and the rest of the
// payment too (encodepayment.go); the bytes are json.Marshal's own
// (TestMarshalPaymentIsMarshal, over payments of every shape and strings
// that need escaping).

// marshalPayment answers json.Marshal(p).
func marshalPayment(p *wire.Payment) ([]byte, error) {
	view, _, err := marshalPaymentAfter(p, nil, nil)
	return view, err
}

// movesEncoding is where a payment's view holds its captures and its
// refunds, so that the payment's next encoding, a move later, need not
// encode again the moves it had: a move appends captures and refunds and
// never changes one it finds (the store's contract for a MoveFunc).
// captures and refunds are the arrays as the view wrote them, without
// their closing bracket, and point into the view, which is never written
// to once made; the counts say how many moves they hold, and the ids of
// the last of each tell a slice that was replaced rather than appended
// to.
//
// head and tail are the rest of the view around its status, is_test and
// moves: every member before the status, and every member after the
// refunds with the closing brace. A capture or a refund changes the
// payment's moves and at most its status, so a move that left every
// other field as it found it (samePaymentBesideMoves) writes the new
// view from them without encoding the payment again. session is the
// record's session as it was stored with the view.
type movesEncoding struct {
	captures, refunds           []byte
	nCaptures, nRefunds         int
	lastCaptureID, lastRefundID string
	head, tail                  []byte // nil: not known
	session                     []byte // nil: not known
}

// marshalPaymentAfter answers json.Marshal(p) and where it holds the
// moves. With prev, the encoding of p's payment before the move that
// appended to its moves, the moves prev holds are copied, not encoded;
// with found too, the payment as prev encoded it (a shallow copy made
// before the move), the rest of the payment is copied from prev when the
// move left it as it was.
func marshalPaymentAfter(p *wire.Payment, prev *movesEncoding, found *wire.Payment) ([]byte, *movesEncoding, error) {
	if p.Captures == nil || p.Refunds == nil {
		view, err := json.Marshal(p)
		return view, nil, err
	}
	if prev != nil && !prev.holds(p) {
		prev = nil
	}
	reuse := prev != nil && prev.head != nil && found != nil && samePaymentBesideMoves(p, found)
	var keptCaptures, keptRefunds []byte // nil: none kept
	var nCaptures, nRefunds int
	if prev != nil {
		keptCaptures, keptRefunds, nCaptures, nRefunds = prev.captures, prev.refunds, prev.nCaptures, prev.nRefunds
	}
	scratch := encodeBuffers.Get().(*[]byte)
	defer putEncodeBuffer(scratch)
	out := (*scratch)[:0]
	var err error
	if reuse {
		out = append(out, prev.head...)
	} else if out, err = appendPaymentHead(out, p); err != nil {
		return nil, nil, err
	}
	headEnd := len(out)
	out = appendStatus(out, p)
	out, capturesAt, err := appendMovesAfter(append(out, `,"captures":`...), keptCaptures, p.Captures, nCaptures, appendCapture)
	if err != nil {
		return nil, nil, err
	}
	capturesEnd := len(out)
	out, refundsAt, err := appendMovesAfter(append(out, `],"refunds":`...), keptRefunds, p.Refunds, nRefunds, appendRefund)
	if err != nil {
		return nil, nil, err
	}
	refundsEnd := len(out)
	out = append(out, ']')
	tailAt := len(out)
	if reuse {
		out = append(out, prev.tail...)
	} else if out, err = appendPaymentTail(out, p); err != nil {
		return nil, nil, err
	}
	*scratch = out
	view := make([]byte, len(out)) // the view is kept: exactly its size
	copy(view, out)
	enc := &movesEncoding{
		captures: view[capturesAt:capturesEnd:capturesEnd], refunds: view[refundsAt:refundsEnd:refundsEnd],
		nCaptures: len(p.Captures), nRefunds: len(p.Refunds),
		head: view[:headEnd:headEnd], tail: view[tailAt:len(view):len(view)],
	}
	if n := len(p.Captures); n > 0 {
		enc.lastCaptureID = p.Captures[n-1].ID
	}
	if n := len(p.Refunds); n > 0 {
		enc.lastRefundID = p.Refunds[n-1].ID
	}
	if verifyRecordCache {
		mustMarshalAlike(view, p)
	}
	return view, enc, nil
}

// encodeBuffers are where views are written before they are copied out at
// their size: a view grows by a move at a time, and a buffer that grew
// with it would be copied at each doubling and kept with room to spare.
var encodeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// putEncodeBuffer gives a buffer back, unless a payment of a rare size
// grew it past what is worth keeping.
func putEncodeBuffer(b *[]byte) {
	if cap(*b) <= 256<<10 {
		encodeBuffers.Put(b)
	}
}

// appendStatus appends the payment's members between its head and its
// moves as json.Marshal writes them: the status (omitted when empty) and
// is_test.
func appendStatus(out []byte, p *wire.Payment) []byte {
	if p.Status != "" {
		out = appendKeyString(out, `,"status":`, p.Status)
	}
	if p.IsTest {
		return append(out, `,"is_test":true`...)
	}
	return append(out, `,"is_test":false`...)
}

// samePaymentBesideMoves tells whether p holds what was does in every
// field but its status, is_test and moves: the same values, and the same
// pointers, maps and slices (of the same length), which a move never
// writes through (MoveFunc), so that what they point to is as it was
// too. Every field of wire.Payment is named here or in
// paymentFieldsBesideHead (TestSamePaymentBesideMovesNamesEveryField).
func samePaymentBesideMoves(p, was *wire.Payment) bool {
	return p.ID == was.ID && p.Amount == was.Amount && p.Currency == was.Currency && p.Description == was.Description &&
		p.Buyer == was.Buyer && p.ShippingAddress == was.ShippingAddress && p.Order == was.Order &&
		p.BuyerHistory == was.BuyerHistory && sameSlice(p.OrderHistory, was.OrderHistory) &&
		p.CreatedAt == was.CreatedAt && p.ExpiresAt == was.ExpiresAt &&
		sameMap(p.Meta, was.Meta) && p.Attachment == was.Attachment
}

// paymentFieldsBesideHead are the fields of wire.Payment that the head
// and tail of its view do not hold.
var paymentFieldsBesideHead = []string{"raw", "Status", "IsTest", "Captures", "Refunds"}

// sameSlice tells whether a and b are one slice: nil alike, the same
// array and length.
func sameSlice[E any](a, b []E) bool {
	return len(a) == len(b) && (a == nil) == (b == nil) && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// sameMap tells whether a and b are one map (or both nil).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// holds tells whether p's moves begin with the ones e encoded: as many at
// least, the last of them the same.
func (e *movesEncoding) holds(p *wire.Payment) bool {
	return len(p.Captures) >= e.nCaptures && len(p.Refunds) >= e.nRefunds &&
		(e.nCaptures == 0 || p.Captures[e.nCaptures-1].ID == e.lastCaptureID) &&
		(e.nRefunds == 0 || p.Refunds[e.nRefunds-1].ID == e.lastRefundID)
}

// appendMovesAfter appends a JSON array of moves without its closing
// bracket, and answers where it starts: kept (nil for none) is the array
// as an earlier encoding wrote it, holding the first n of moves, which are
// copied rather than encoded again.
func appendMovesAfter[M any](out, kept []byte, moves []M, n int, one func([]byte, *M) ([]byte, error)) ([]byte, int, error) {
	at := len(out)
	if kept == nil {
		out, n = append(out, '['), 0
	} else {
		out = append(out, kept...)
	}
	out, err := appendMovesFrom(out, moves, n, one)
	return out, at, err
}

// appendMovesFrom appends the moves from the index from on to an array
// whose opening bracket (and the moves before from) out holds already.
func appendMovesFrom[M any](out []byte, moves []M, from int, one func([]byte, *M) ([]byte, error)) ([]byte, error) {
	for i := from; i < len(moves); i++ {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = one(out, &moves[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendCapture appends a capture as json.Marshal writes it.
func appendCapture(out []byte, c *wire.Capture) ([]byte, error) {
	out = appendKeyString(append(out, '{'), `"id":`, c.ID)
	out = appendDecimal(append(out, `,"amount":`...), c.Amount)
	out = appendKeyString(out, `,"reference_id":`, c.ReferenceID)
	var err error
	if out, err = appendTime(out, `,"created_at":`, c.CreatedAt); err != nil {
		return nil, err
	}
	out = appendOptionalDecimal(out, `,"tax_amount":`, c.TaxAmount)
	out = appendOptionalDecimal(out, `,"shipping_amount":`, c.ShippingAmount)
	out = appendOptionalDecimal(out, `,"discount_amount":`, c.DiscountAmount)
	if out, err = appendItems(out, `,"items":`, c.Items); err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// appendRefund appends a refund as json.Marshal writes it.
func appendRefund(out []byte, r *wire.Refund) ([]byte, error) {
	out = appendKeyString(append(out, '{'), `"id":`, r.ID)
	out = appendDecimal(append(out, `,"amount":`...), r.Amount)
	out = appendKeyString(out, `,"reference_id":`, r.ReferenceID)
	var err error
	if out, err = appendTime(out, `,"created_at":`, r.CreatedAt); err != nil {
		return nil, err
	}
	if r.Reason != "" {
		out = appendKeyString(out, `,"reason":`, r.Reason)
	}
	if out, err = appendItems(out, `,"items":`, r.Items); err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

func appendMarshalled(out []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(out, b...), nil
}

// appendKeyString appends key and s as a JSON string the way json.Marshal
// escapes it (HTML characters too); a string that needs no escape, nearly
// every id and reference, is copied as it is.
func appendKeyString(out []byte, key, s string) []byte {
	out = append(out, key...)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always marshals
			return append(out, b...)
		}
	}
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"')
}

func appendDecimal(out []byte, d decimal.Decimal) []byte {
	b, _ := d.MarshalJSON() // never fails
	return append(out, b...)
}

func appendOptionalDecimal(out []byte, key string, d *decimal.Decimal) []byte {
	if d == nil {
		return out
	}
	return appendDecimal(append(out, key...), *d)
}

// appendTime appends key and t as json.Marshal does (omitted when nil);
// a time it cannot write (a year past 9999) is its error too.
func appendTime(out []byte, key string, t *time.Time) ([]byte, error) {
	if t == nil {
		return out, nil
	}
	if _, offset := t.Zone(); t.Year() < 0 || t.Year() > 9999 || offset <= -24*3600 || offset >= 24*3600 {
		// What MarshalJSON refuses, or may: its error.
		b, err := t.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return append(append(out, key...), b...), nil
	}
	// MarshalJSON's own format, written in place.
	out = t.AppendFormat(append(append(out, key...), '"'), time.RFC3339Nano)
	return append(out, '"'), nil
}
