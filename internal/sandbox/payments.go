package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

func (s *Sandbox) paymentRoutes(mux *http.ServeMux, region string) {
	mux.HandleFunc("GET /api/v2/payments", s.authed(region, authGeneral, s.handleListPayments))
	mux.HandleFunc("GET /api/v2/payments/{id}", s.authed(region, authGeneral, s.handleGetPayment))
	mux.HandleFunc("PUT /api/v2/payments/{id}", s.authed(region, authGeneral, s.handleUpdatePayment))
	mux.HandleFunc("POST /api/v2/payments/{id}/captures", s.authed(region, authGeneral, s.handleCapture))
	mux.HandleFunc("POST /api/v2/payments/{id}/refunds", s.authed(region, authGeneral, s.handleRefund))
	mux.HandleFunc("POST /api/v2/payments/{id}/close", s.authed(region, authGeneral, s.handleClose))
}

// view is the payment as the service shows it now: a CREATED payment past
// its timeout reads EXPIRED even before anything writes that down.
func view(rec *record, now time.Time) *api.Payment {
	rec.settle(now)
	return &rec.Payment
}

func (s *Sandbox) handleGetPayment(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errInvalidID)
		return
	}
	body, err := s.paymentView(r.Context(), id, c.visibility())
	if err != nil {
		writeError(w, err)
		return
	}
	writeRawJSON(w, body)
}

// runMove answers the outcome of a payment move as the service does: the
// whole payment, or the error body.
func (s *Sandbox) runMove(w http.ResponseWriter, r *http.Request, paymentID string, vis *visibility, fn moveFunc) {
	rec, err := s.move(r.Context(), paymentID, vis, fn)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, &rec.Payment)
}

func (s *Sandbox) handleUpdatePayment(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errInvalidID)
		return
	}
	body, err := readBody(r)
	if err != nil {
		writeError(w, bodyRefusal(err, badData("failed to decode request")))
		return
	}
	var req api.UpdatePaymentRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, badData("failed to decode request"))
		return
	}
	if strings.TrimSpace(req.Order.ReferenceID) == "" {
		writeError(w, fieldErrors(fieldError{Field: "$.order.reference_id", Code: "required", Message: "is required"}))
		return
	}
	s.runMove(w, r, id, c.visibility(), updateReference(req.Order.ReferenceID))
}

func updateReference(ref string) moveFunc {
	return func(rec *record, now time.Time) (string, error) {
		st := rec.Payment.Status
		if st != api.StatusAuthorized && st != api.StatusClosed {
			return "", badData("could not update payment: only authorized or closed payments can be updated")
		}
		if rec.Payment.Order == nil {
			rec.Payment.Order = &api.Order{}
		}
		if rec.Payment.Order.ReferenceID == ref {
			return "", nil
		}
		rec.Payment.Order.ReferenceID = ref
		return "updated", nil
	}
}

// decodeMoveBody reads a capture or refund body. An empty or cut-off body
// is "EOF", as the service says it.
func decodeMoveBody(r *http.Request, into any) error {
	body, err := readBody(r)
	if err != nil {
		return bodyRefusal(err, badData("EOF"))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(into); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return badData("EOF")
		}
		return badData("failed to decode request")
	}
	return nil
}

// captureBody is a capture request with its amounts kept raw, so that each
// bad amount gets the service's own message instead of a decoding error.
type captureBody struct {
	Amount         json.RawMessage `json:"amount"`
	ReferenceID    string          `json:"reference_id"`
	TaxAmount      json.RawMessage `json:"tax_amount"`
	ShippingAmount json.RawMessage `json:"shipping_amount"`
	DiscountAmount json.RawMessage `json:"discount_amount"`
	Items          []api.OrderItem `json:"items"`
}

// rawAmount reads an amount sent as a JSON string or number. ok is false
// when the field was absent or null.
func rawAmount(raw json.RawMessage) (text string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	return string(raw), true
}

// parseAmount reads text as an amount in currency; reason says what is
// wrong, in the service's words.
func parseAmount(text, currency string) (d decimal.Decimal, reason string) {
	d, reason = decodeAmount(text)
	if reason != "" {
		return decimal.Zero, reason
	}
	if reason = amountValueProblem(text, d, currency); reason != "" {
		return decimal.Zero, reason
	}
	return d, ""
}

// decodeAmount reads text as a number; when it is none (NaN, words), the
// reason is worded as the service's decimal decoder words it.
func decodeAmount(text string) (decimal.Decimal, string) {
	d, err := decimal.NewFromString(strings.TrimSpace(text))
	if err != nil {
		return decimal.Zero, fmt.Sprintf("error decoding string '%s': can't convert %s to decimal", text, text)
	}
	return d, ""
}

// amountValueProblem says what is wrong with a decoded amount as money, or
// "". The decimal library reads exponent notation ("1e2") but the
// service's amounts are plain decimal strings, so it is refused as an
// invalid value, the same way for captures and refunds. Too many places
// for the currency is the other problem.
func amountValueProblem(text string, d decimal.Decimal, currency string) string {
	// Decoding succeeded, so an e or E can only be an exponent marker.
	if strings.ContainsAny(text, "eE") {
		return fmt.Sprintf("exponent notation is not supported, but got '%s': write a plain decimal such as 100.00", strings.TrimSpace(text))
	}
	if -d.Exponent() > money.Places(currency) {
		return placesMessage(currency, &d)
	}
	return ""
}

func captureError(reason string) error {
	return badData("Errors: [invalid_value($.amount): " + reason + "]")
}

func (s *Sandbox) handleCapture(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errInvalidID)
		return
	}
	var body captureBody
	if err := decodeMoveBody(r, &body); err != nil {
		writeError(w, err)
		return
	}
	text, sent := rawAmount(body.Amount)
	if !sent {
		writeError(w, captureError("amount is required"))
		return
	}
	amount, reason := parseAmount(text, c.merchant.Currency)
	if reason == "" && !amount.IsPositive() {
		reason = "amount should be positive"
	}
	if reason != "" {
		writeError(w, captureError(reason))
		return
	}
	capture := api.Capture{ID: uuid.NewString(), Amount: amount, ReferenceID: body.ReferenceID, Items: body.Items}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  **decimal.Decimal
	}{{"tax_amount", body.TaxAmount, &capture.TaxAmount}, {"shipping_amount", body.ShippingAmount, &capture.ShippingAmount}, {"discount_amount", body.DiscountAmount, &capture.DiscountAmount}} {
		text, sent := rawAmount(f.raw)
		if !sent {
			continue
		}
		d, reason := parseAmount(text, c.merchant.Currency)
		if reason == "" && d.IsNegative() {
			reason = "should be positive or zero"
		}
		if reason != "" {
			writeError(w, badData("Errors: [invalid_value($."+f.name+"): "+reason+"]"))
			return
		}
		*f.dst = &d
	}
	s.runMove(w, r, id, c.visibility(), captureMove(capture))
}

func captureMove(capture api.Capture) moveFunc {
	return func(rec *record, now time.Time) (string, error) {
		p := &rec.Payment
		if capture.ReferenceID != "" && p.CaptureByReference(capture.ReferenceID) != nil {
			return "", nil // a retry of a capture already made
		}
		switch {
		case p.Status == api.StatusClosed:
			return "", badData("already closed")
		case p.Status != api.StatusAuthorized:
			return "", badData("could not capture not authorized payments")
		case rec.authExpired(now):
			return "", badData("could not capture: payment was already expired")
		}
		remaining := p.Amount.Sub(p.Captured())
		if capture.Amount.GreaterThan(remaining) {
			return "", badData(fmt.Sprintf("could not capture: could not capture more than not captured yet: %s > %s",
				money.Format(capture.Amount, p.Currency), money.Format(remaining, p.Currency)))
		}
		at := now
		capture.CreatedAt = &at
		p.Captures = append(p.Captures, capture)
		if capture.Amount.Equal(remaining) {
			p.Status = api.StatusClosed
			rec.ClosedAt = &at
		}
		return "captured", nil
	}
}

type refundBody struct {
	Amount      json.RawMessage `json:"amount"`
	ReferenceID string          `json:"reference_id"`
	Reason      string          `json:"reason"`
	Items       []api.OrderItem `json:"items"`
}

func (s *Sandbox) handleRefund(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errInvalidID)
		return
	}
	var body refundBody
	if err := decodeMoveBody(r, &body); err != nil {
		writeError(w, err)
		return
	}
	amount := decimal.Zero
	if text, sent := rawAmount(body.Amount); sent {
		// A refund words the two kinds of problem differently: an
		// undecodable amount in the simple form, a decoded one that is
		// not valid money in the field-validation form.
		d, reason := decodeAmount(text)
		if reason != "" {
			writeError(w, badData(reason))
			return
		}
		if reason := amountValueProblem(text, d, c.merchant.Currency); reason != "" {
			writeError(w, fieldErrors(fieldError{Field: "$.amount", Code: "invalid_value", Message: reason}))
			return
		}
		amount = d
	}
	if !amount.IsPositive() {
		writeError(w, badData("refund amount is less then or equals zero"))
		return
	}
	refund := api.Refund{ID: uuid.NewString(), Amount: amount, ReferenceID: body.ReferenceID, Reason: body.Reason, Items: body.Items}
	s.runMove(w, r, id, c.visibility(), s.refundMove(refund))
}

// refundGuards may refuse a refund for reasons kept outside the payment,
// such as an active dispute (409 "payment is disputed"). Later areas append
// to it from an init function; a guard runs with the payment locked.
var refundGuards []func(s *Sandbox, rec *record) error

func (s *Sandbox) refundMove(refund api.Refund) moveFunc {
	return func(rec *record, now time.Time) (string, error) {
		p := &rec.Payment
		if refund.ReferenceID != "" && p.RefundByReference(refund.ReferenceID) != nil {
			return "", nil // a retry of a refund already made
		}
		if p.Status != api.StatusClosed || len(p.Captures) == 0 {
			return "", badData("can not refund payment that has no captures and not closed")
		}
		for _, guard := range refundGuards {
			if err := guard(s, rec); err != nil {
				return "", err
			}
		}
		refundable := p.Captured().Sub(p.Refunded())
		if !refundable.IsPositive() {
			// Everything captured went back already: the payment takes no
			// more refunds, as a retried full refund finds it.
			return "", badData("already closed")
		}
		if refund.Amount.GreaterThan(refundable) {
			return "", badData("refund amount should be less or equal than billed amount")
		}
		at := now
		refund.CreatedAt = &at
		p.Refunds = append(p.Refunds, refund)
		return "refunded", nil
	}
}

func (s *Sandbox) handleClose(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errInvalidID)
		return
	}
	s.runMove(w, r, id, c.visibility(), closeMove)
}

func closeMove(rec *record, now time.Time) (string, error) {
	p := &rec.Payment
	switch {
	case p.Status == api.StatusClosed:
		return "", badData("already closed")
	case p.Status != api.StatusAuthorized:
		return "", badData("only authorized payments can be closed")
	case rec.authExpired(now):
		return "", badData("could not cancel payment: payment was already expired")
	}
	at := now
	p.Status = api.StatusClosed
	rec.ClosedAt = &at
	return "closed", nil
}

// parseListTime reads a created_at bound of the payments or disputes list:
// a bare date (midnight UTC), an RFC 3339 time, or an ISO 8601 datetime
// without a zone ("2026-11-21T10:00:00"), which the interface allows and
// which, its timestamps being UTC, is taken as UTC. Fractional seconds
// are accepted after the seconds in either datetime form.
func parseListTime(v string) (time.Time, bool) {
	for _, layout := range []string{time.DateOnly, time.RFC3339Nano, "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func (s *Sandbox) handleListPayments(w http.ResponseWriter, r *http.Request, c caller) {
	q := r.URL.Query()
	bad := badData("failed to decode request")
	limit, offset := api.MaxPageLimit, 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, bad)
			return
		}
		if n > 0 {
			limit = min(n, api.MaxPageLimit)
		}
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, bad)
			return
		}
		offset = n
	}
	filter := ""
	if v := q.Get("status"); v != "" {
		filter = strings.ToLower(v)
		if _, ok := statusConds[filter]; !ok {
			writeError(w, bad)
			return
		}
	}
	var bounds [2]*int64
	for i, name := range []string{"created_at__gte", "created_at__lte"} {
		if v := q.Get(name); v != "" {
			t, ok := parseListTime(v)
			if !ok {
				writeError(w, bad)
				return
			}
			ns := nanosBound(t)
			bounds[i] = &ns
		}
	}
	payments, total, err := s.listPayments(r.Context(), listQuery{
		merchant: c.merchant.Code, isTest: c.isTest, status: filter, gte: bounds[0], lte: bounds[1],
	}, limit, offset)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Payments   []json.RawMessage `json:"payments"`
		Pagination api.Pagination    `json:"pagination"`
	}{payments, api.Pagination{Limit: limit, Offset: offset, TotalCount: total}})
}
