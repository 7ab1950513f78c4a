package bulk

import (
	"fmt"
	"hash/maphash"
	"strings"
	"unicode"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
)

// validator checks rows one at a time, remembering what it needs to catch
// duplicates across rows.
type validator struct {
	op      Op
	invalid []RowError
	// emit takes each valid row.
	emit func(Row)
	// refLines finds a reference_id used twice on one payment (the service
	// keeps reference_ids per payment): it would take the second row as a
	// retry of the first and move no money for it.
	refLines lineTable
	// sameLines finds identical rows without a reference_id, refused
	// unless allowRepeats.
	sameLines    lineTable
	allowRepeats bool
	// closeLines finds a payment closed twice, which can only fail.
	closeLines lineTable
	// The tables are keyed by a 64-bit hash, to keep a large input's rows
	// out of memory; two different keys of one hash (about one chance in
	// 10^6 for 4 million rows) refuse a row as a repeat, nothing sent:
	// never a move made twice.
	seed maphash.Seed
}

func newValidator(op Op) *validator {
	return &validator{op: op, seed: maphash.MakeSeed()}
}

// hash is the maps' key of parts.
func (v *validator) hash(parts ...string) uint64 {
	var h maphash.Hash
	h.SetSeed(v.seed)
	for _, p := range parts {
		h.WriteString(p)
		h.WriteByte(0)
	}
	return h.Sum64()
}

func (v *validator) reject(e RowError) {
	if e.Op == "" && v.op.valid() {
		e.Op = v.op
	}
	v.invalid = append(v.invalid, e)
}

// rowCheck is one row being checked: the row read so far, its fields as
// written, and its problems.
type rowCheck struct {
	row      Row
	fields   map[string]string
	problems []RowError
	// opKnown is false when an apply row's op is missing or unknown:
	// the rules of its op cannot be told.
	opKnown bool
}

// bad adds a problem; one per field is enough: a value of the wrong JSON
// type need not also be reported as missing.
func (c *rowCheck) bad(field, msg string) {
	for _, p := range c.problems {
		if p.Field == field || p.Field == "" {
			return
		}
	}
	c.problems = append(c.problems, RowError{Field: field, Message: msg})
}

// check validates one row and hands it on, or rejects it with every
// problem found.
func (v *validator) check(line int, f map[string]string, problems []RowError) {
	c := &rowCheck{fields: f, problems: problems, opKnown: true, row: Row{
		Line:           line,
		Op:             v.op,
		PaymentID:      strings.ToLower(f[colPaymentID]),
		Amount:         f[colAmount],
		ReferenceID:    f[colReferenceID],
		TaxAmount:      f[colTaxAmount],
		ShippingAmount: f[colShippingAmount],
		DiscountAmount: f[colDiscountAmount],
		Reason:         f[colReason],
		Currency:       strings.ToUpper(f[colCurrency]),
	}}
	v.checkOp(c)
	checkPaymentID(c)
	checkOpAmount(c)
	checkParts(c)
	checkCurrency(c)
	checkTexts(c)
	if len(c.problems) == 0 && c.row.Op == OpCapture && !c.row.Full() {
		if field, msg := excessPart(c.row, c.row.Amount); msg != "" {
			c.bad(field, msg)
		}
	}
	if len(c.problems) == 0 {
		v.checkRepeats(c)
	}
	if len(c.problems) > 0 {
		for _, p := range c.problems {
			p.Line, p.PaymentID, p.Amount, p.ReferenceID = line, f[colPaymentID], f[colAmount], f[colReferenceID]
			p.Op = c.row.Op
			if !c.opKnown {
				p.Op = Op(f[colOp])
			}
			v.reject(p)
		}
		return
	}
	v.emit(c.row)
}

// checkOp sets the row's move: the run's, or its op column in an apply
// run. A single-op run takes an op column that names its own op, so that
// a file made for apply can be run one op at a time.
func (v *validator) checkOp(c *rowCheck) {
	given := Op(strings.ToLower(c.fields[colOp]))
	switch {
	case v.op != OpApply:
		if given != "" && given != v.op {
			c.bad(colOp, fmt.Sprintf("is %s, and this command runs %s rows only: run a file of mixed rows with bnpl payments apply", c.fields[colOp], v.op))
		}
	case given == "":
		c.bad(colOp, "is required: capture, refund or close")
		c.opKnown = false
	case !given.valid():
		c.bad(colOp, fmt.Sprintf("%q is not a move: capture, refund or close", c.fields[colOp]))
		c.opKnown = false
	default:
		c.row.Op = given
	}
}

func checkPaymentID(c *rowCheck) {
	switch {
	case c.row.PaymentID == "":
		c.bad(colPaymentID, "is required")
	case !isUUID(c.row.PaymentID):
		c.bad(colPaymentID, fmt.Sprintf("%q is not a payment id (a UUID such as 6f1c2a9e-0b8d-4c3e-9a51-2d7f4e8b1c06)", c.fields[colPaymentID]))
	}
}

// checkOpAmount applies the op's rule to the amount and reference_id: a
// close moves no amount and sends no reference_id; the others need a
// positive amount or full.
func checkOpAmount(c *rowCheck) {
	row := &c.row
	switch {
	case !c.opKnown:
	case row.Op == OpClose:
		if row.Amount != "" {
			c.bad(colAmount, "close moves no amount: leave it empty")
		}
		if row.ReferenceID != "" {
			c.bad(colReferenceID, "close sends no reference_id: leave it empty")
		}
	case row.Amount == "":
		c.bad(colAmount, "is required: a positive amount such as 100.00, or full")
	case strings.EqualFold(row.Amount, FullAmount):
		row.Amount = FullAmount
	default:
		if msg := checkAmount(row.Amount, true); msg != "" {
			c.bad(colAmount, msg)
		}
	}
}

// checkParts checks a capture's tax, shipping and discount amounts, and
// that a reason is only on a refund.
func checkParts(c *rowCheck) {
	row := c.row
	for _, x := range []struct{ col, val string }{
		{colTaxAmount, row.TaxAmount}, {colShippingAmount, row.ShippingAmount}, {colDiscountAmount, row.DiscountAmount},
	} {
		switch {
		case x.val == "":
		case c.opKnown && row.Op != OpCapture:
			c.bad(x.col, "is only for capture: leave it empty")
		default:
			if msg := checkAmount(x.val, false); msg != "" {
				c.bad(x.col, msg)
			}
		}
	}
	if row.Reason != "" && c.opKnown && row.Op != OpRefund {
		c.bad(colReason, "is only for refund: leave it empty")
	}
}

// checkCurrency checks a currency column, and the places of the amounts
// in it, known up front when it is given.
func checkCurrency(c *rowCheck) {
	row := c.row
	if row.Currency == "" {
		return
	}
	if !money.Known(row.Currency) {
		c.bad(colCurrency, fmt.Sprintf("%q is not a currency of the service (AED, KWD, SAR)", c.fields[colCurrency]))
		return
	}
	for _, x := range []struct{ col, val string }{{colAmount, row.Amount}, {colTaxAmount, row.TaxAmount}, {colShippingAmount, row.ShippingAmount}, {colDiscountAmount, row.DiscountAmount}} {
		if x.val == "" || x.val == FullAmount || checkAmount(x.val, false) != "" {
			continue
		}
		if _, err := money.Parse(x.val, row.Currency); err != nil {
			c.bad(x.col, err.Error())
		}
	}
}

// checkTexts bounds the texts as single moves do (api.CheckText; the
// input is UTF-8 by now, see utf8Input), and refuses a reference_id a
// person could not read as it is sent.
func checkTexts(c *rowCheck) {
	if msg := api.CheckText(c.row.ReferenceID, api.MaxReferenceIDLen); msg != "" {
		c.bad(colReferenceID, msg)
	} else if msg := invisibleCharacter(c.row.ReferenceID); msg != "" {
		c.bad(colReferenceID, msg)
	}
	if msg := api.CheckText(c.row.Reason, api.MaxTextLen); msg != "" {
		c.bad(colReason, msg)
	}
}

// invisibleCharacter says where s holds a control, format or bidi
// character (a zero-width space, a direction mark, a byte-order mark, C0
// or C1 controls), or "". A reference_id with one is another id than the
// one a person reads, copies or types to find the move: it is refused
// before anything is sent.
func invisibleCharacter(s string) string {
	n := 0
	for _, r := range s {
		n++
		kind := ""
		switch {
		case unicode.IsControl(r):
			kind = "a control character"
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Bidi_Control, r):
			kind = "a format or bidi character"
		case unicode.In(r, unicode.Zl, unicode.Zp):
			kind = "a line or paragraph separator"
		default:
			continue
		}
		return fmt.Sprintf("holds U+%04X (%s) at character %d, which no one sees in the id: type the id again without it", r, kind, n)
	}
	return ""
}

// checkRepeats refuses a reference_id twice on one payment, identical
// rows without one (unless allowRepeats), and a payment closed twice.
func (v *validator) checkRepeats(c *rowCheck) {
	row, line := c.row, c.row.Line
	switch {
	case row.ReferenceID != "":
		// Captures and refunds keep their reference_ids apart.
		key := v.hash(string(row.Op), row.PaymentID, row.ReferenceID)
		if first, dup := v.refLines.get(key); dup {
			c.bad(colReferenceID, fmt.Sprintf("%q is also on line %d for the same payment: the service would take this row as a retry of that one and move nothing for it", row.ReferenceID, first))
		} else {
			v.refLines.put(key, lineNumber(line))
		}
	case row.Op != OpClose:
		key := v.hash(sameRowKey(row)...)
		if first, dup := v.sameLines.get(key); dup && !v.allowRepeats {
			c.bad("", fmt.Sprintf("is the same as line %d, with no reference_id: written twice by mistake? Give each a reference_id, or pass --allow-repeats to move the money once per row", first))
		} else if !dup {
			v.sameLines.put(key, lineNumber(line))
		}
	default:
		if first, dup := v.closeLines.get(v.hash(row.PaymentID)); dup {
			c.bad(colPaymentID, fmt.Sprintf("payment is already closed by line %d", first))
		} else {
			v.closeLines.put(v.hash(row.PaymentID), lineNumber(line))
		}
	}
}
