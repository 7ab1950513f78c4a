package service

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

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/shopspring/decimal"
)

func (s *Service) paymentRoutes(mux *http.ServeMux, region string) {
	mux.HandleFunc("GET /api/v2/payments", s.authed(region, authGeneral, s.handleListPayments))
	mux.HandleFunc("GET /api/v2/payments/{id}", s.authedDating(region, authGeneral, s.handleGetPayment))
	mux.HandleFunc("PUT /api/v2/payments/{id}", s.authed(region, authGeneral, s.handleUpdatePayment))
	mux.HandleFunc("POST /api/v2/payments/{id}/captures", s.authedDating(region, authGeneral, s.handleCapture))
	mux.HandleFunc("POST /api/v2/payments/{id}/refunds", s.authedDating(region, authGeneral, s.handleRefund))
	mux.HandleFunc("POST /api/v2/payments/{id}/close", s.authedDating(region, authGeneral, s.handleClose))
}

// View is the payment as the service shows it now: a CREATED payment past
// its timeout reads EXPIRED even before anything writes that down.
func View(rec *store.Record, now time.Time) *wire.Payment {
	rec.Settle(now)
	return &rec.Payment
}

func (s *Service) handleGetPayment(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		s.stampDate(w, r)
		edge.WriteError(w, edge.ErrInvalidID)
		return
	}
	body, now, err := s.PaymentView(r.Context(), id, c.visibility())
	if err != nil {
		s.stampDate(w, r)
		edge.WriteError(w, err)
		return
	}
	setDate(w, now) // the clock of the same read as the payment
	edge.WriteRawJSON(w, body)
}

// runMove answers the outcome of a payment move as the service does: the
// whole payment, or the error body.
//
// Its Date is the clock the move ran at, read in the move's own
// transaction (its route is authedDating): a move reads the clock once.
// An answer before the move ran (a payment not found, or locked) is dated
// by DateMiddleware as it is written.
func (s *Service) runMove(w http.ResponseWriter, r *http.Request, paymentID string, vis *store.Visibility, fn store.MoveFunc) {
	var at time.Time
	rec, err := s.Move(r.Context(), paymentID, vis, func(rec *store.Record, now time.Time) (string, error) {
		at = now // the last run of the job is the one that committed
		return fn(rec, now)
	})
	if !at.IsZero() {
		setDate(w, at)
	}
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	if rec.View != nil { // the payment as the move stored it
		edge.WriteRawJSON(w, rec.View)
		return
	}
	edge.WriteJSON(w, http.StatusOK, &rec.Payment)
}

func (s *Service) handleUpdatePayment(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, edge.ErrInvalidID)
		return
	}
	body, err := edge.ReadBody(r)
	if err != nil {
		edge.WriteError(w, edge.BodyRefusal(err, edge.BadData("failed to decode request")))
		return
	}
	var req wire.UpdatePaymentRequest
	if err := json.Unmarshal(body, &req); err != nil {
		edge.WriteError(w, edge.BadData("failed to decode request"))
		return
	}
	if strings.TrimSpace(req.Order.ReferenceID) == "" {
		edge.WriteError(w, edge.FieldErrors(edge.FieldError{Field: "$.order.reference_id", Code: "required", Message: "is required"}))
		return
	}
	s.runMove(w, r, id, c.visibility(), updateReference(req.Order.ReferenceID))
}

func updateReference(ref string) store.MoveFunc {
	return func(rec *store.Record, now time.Time) (string, error) {
		st := rec.Payment.Status
		if st != wire.StatusAuthorized && st != wire.StatusClosed {
			return "", edge.BadData("could not update payment: only authorized or closed payments can be updated")
		}
		if rec.Payment.Order != nil && rec.Payment.Order.ReferenceID == ref {
			return "", nil
		}
		// A new order, not a change of the one found: a move never writes
		// through a pointer of the record it loads (store.MoveFunc).
		var order wire.Order
		if rec.Payment.Order != nil {
			order = *rec.Payment.Order
		}
		order.ReferenceID = ref
		rec.Payment.Order = &order
		return "updated", nil
	}
}

// decodeMoveBody reads a capture or refund body. An empty or cut-off body
// is "EOF", as the service says it.
func decodeMoveBody(r *http.Request, into any) error {
	body, err := edge.ReadBody(r)
	if err != nil {
		return edge.BodyRefusal(err, edge.BadData("EOF"))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(into); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return edge.BadData("EOF")
		}
		return edge.BadData("failed to decode request")
	}
	return nil
}

// captureBody is a capture request with its amounts and items kept raw,
// so that each is read by the rules the client applies before sending
// (internal/api) and a bad one gets the service's own message instead of
// a decoding error.
type captureBody struct {
	Amount         json.RawMessage `json:"amount"`
	ReferenceID    string          `json:"reference_id"`
	TaxAmount      json.RawMessage `json:"tax_amount"`
	ShippingAmount json.RawMessage `json:"shipping_amount"`
	DiscountAmount json.RawMessage `json:"discount_amount"`
	Items          json.RawMessage `json:"items"`
}

// sentValue reports whether a raw field was sent with a value: absent and
// null are the same.
func sentValue(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// moveAmount reads an amount of a capture or a refund the one way every
// amount is read: a JSON string in the grammar of internal/money with at
// most the currency's places. A JSON number is refused, since the
// published OpenAPI types amounts as strings. f says what is wrong.
func moveAmount(raw json.RawMessage, path, currency string) (decimal.Decimal, *wire.Finding) {
	v, ok := wire.DecodeTree(raw)
	if !ok {
		return decimal.Zero, &wire.Finding{Path: path, Code: wire.CodeInvalid, Service: "could not decode the amount"}
	}
	return wire.CheckAmount(v, path, currency)
}

// notANumber reports whether a refused amount was not a number at all,
// which the service's decimal reader words in the simple form.
func notANumber(f *wire.Finding) bool {
	return strings.HasPrefix(f.Service, "error decoding string ")
}

// moveItems reads a capture's or a refund's items by the client's rules
// for them, answering what is wrong in the field-validation form.
func moveItems(raw json.RawMessage, currency string) ([]wire.OrderItem, error) {
	if !sentValue(raw) {
		return nil, nil
	}
	findings, _ := wire.CheckMoveItems(raw, currency)
	if len(findings) > 0 {
		errs := make([]edge.FieldError, 0, len(findings))
		for _, f := range findings {
			msg := f.Service
			if f.Value {
				msg = f.Message
			}
			errs = append(errs, edge.FieldError{Field: f.Path, Code: f.Code, Message: msg})
		}
		return nil, edge.FieldErrors(errs...)
	}
	var items []wire.OrderItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, edge.BadData("failed to decode request")
	}
	return items, nil
}

// RawAmount reads an amount of the dispute endpoints. Like every amount
// it is a JSON string: ok is false when the field was absent or null, and
// why says what is wrong when it was sent as anything else (a JSON number
// is refused here as it is for captures and refunds).
func RawAmount(raw json.RawMessage) (text string, ok bool, why string) {
	if !sentValue(raw) {
		return "", false, ""
	}
	v, decoded := wire.DecodeTree(raw)
	if !decoded {
		return "", true, "could not decode the amount"
	}
	s, isString := v.(string)
	if !isString {
		_, f := wire.CheckAmount(v, "$.amount", "")
		return "", true, f.Service
	}
	return s, true, ""
}

// ParseAmount reads text as an amount in currency by the grammar of
// internal/money; reason says what is wrong, in the service's words.
func ParseAmount(text, currency string) (decimal.Decimal, string) {
	d, f := wire.CheckAmount(text, "$.amount", currency)
	if f != nil {
		return decimal.Zero, f.Service
	}
	return d, ""
}

func captureError(reason string) error {
	return edge.BadData("Errors: [invalid_value($.amount): " + reason + "]")
}

func (s *Service) handleCapture(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, edge.ErrInvalidID)
		return
	}
	var body captureBody
	if err := decodeMoveBody(r, &body); err != nil {
		edge.WriteError(w, err)
		return
	}
	if !sentValue(body.Amount) {
		edge.WriteError(w, captureError("amount is required"))
		return
	}
	amount, f := moveAmount(body.Amount, "$.amount", c.merchant.Currency)
	reason := ""
	if f != nil {
		reason = f.Service
	} else if !amount.IsPositive() {
		reason = "amount should be positive"
	}
	if reason != "" {
		edge.WriteError(w, captureError(reason))
		return
	}
	items, err := moveItems(body.Items, c.merchant.Currency)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	capture := wire.Capture{ID: s.NewID(r.Context()), Amount: amount, ReferenceID: body.ReferenceID, Items: items}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  **decimal.Decimal
	}{{"tax_amount", body.TaxAmount, &capture.TaxAmount}, {"shipping_amount", body.ShippingAmount, &capture.ShippingAmount}, {"discount_amount", body.DiscountAmount, &capture.DiscountAmount}} {
		if !sentValue(f.raw) {
			continue
		}
		d, bad := moveAmount(f.raw, "$."+f.name, c.merchant.Currency)
		reason := ""
		if bad != nil {
			reason = bad.Service
		} else if d.IsNegative() {
			reason = "should be positive or zero"
		}
		if reason != "" {
			edge.WriteError(w, edge.BadData("Errors: [invalid_value($."+f.name+"): "+reason+"]"))
			return
		}
		*f.dst = &d
	}
	s.runMove(w, r, id, c.visibility(), captureMove(capture))
}

func captureMove(capture wire.Capture) store.MoveFunc {
	return func(rec *store.Record, now time.Time) (string, error) {
		p := &rec.Payment
		if capture.ReferenceID != "" && p.CaptureByReference(capture.ReferenceID) != nil {
			return "", nil // a retry of a capture already made
		}
		switch {
		case p.Status == wire.StatusClosed:
			return "", edge.BadData("already closed")
		case p.Status != wire.StatusAuthorized:
			return "", edge.BadData("could not capture not authorized payments")
		case rec.AuthExpired(now):
			return "", edge.BadData("could not capture: payment was already expired")
		}
		remaining := p.Amount.Sub(p.Captured())
		if capture.Amount.GreaterThan(remaining) {
			return "", edge.BadData(fmt.Sprintf("could not capture: could not capture more than not captured yet: %s > %s",
				money.Format(capture.Amount, p.Currency), money.Format(remaining, p.Currency)))
		}
		at := now
		capture.CreatedAt = &at
		p.Captures = append(p.Captures, capture)
		if capture.Amount.Equal(remaining) {
			p.Status = wire.StatusClosed
			rec.ClosedAt = &at
		}
		return "captured", nil
	}
}

type refundBody struct {
	Amount      json.RawMessage `json:"amount"`
	ReferenceID string          `json:"reference_id"`
	Reason      string          `json:"reason"`
	Items       json.RawMessage `json:"items"`
}

func (s *Service) handleRefund(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, edge.ErrInvalidID)
		return
	}
	var body refundBody
	if err := decodeMoveBody(r, &body); err != nil {
		edge.WriteError(w, err)
		return
	}
	amount := decimal.Zero
	if sentValue(body.Amount) {
		// A refund words the two kinds of problem differently: what is no
		// number at all in the simple form, the rest in the
		// field-validation form.
		d, f := moveAmount(body.Amount, "$.amount", c.merchant.Currency)
		if f != nil && notANumber(f) {
			edge.WriteError(w, edge.BadData(f.Service))
			return
		}
		if f != nil {
			edge.WriteError(w, edge.FieldErrors(edge.FieldError{Field: f.Path, Code: f.Code, Message: f.Service}))
			return
		}
		amount = d
	}
	if !amount.IsPositive() {
		edge.WriteError(w, edge.BadData("refund amount is less then or equals zero"))
		return
	}
	items, err := moveItems(body.Items, c.merchant.Currency)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	refund := wire.Refund{ID: s.NewID(r.Context()), Amount: amount, ReferenceID: body.ReferenceID, Reason: body.Reason, Items: items}
	s.runMove(w, r, id, c.visibility(), s.refundMove(refund))
}

func (s *Service) refundMove(refund wire.Refund) store.MoveFunc {
	return func(rec *store.Record, now time.Time) (string, error) {
		p := &rec.Payment
		if refund.ReferenceID != "" && p.RefundByReference(refund.ReferenceID) != nil {
			return "", nil // a retry of a refund already made
		}
		if p.Status != wire.StatusClosed || len(p.Captures) == 0 {
			return "", edge.BadData("can not refund payment that has no captures and not closed")
		}
		for _, guard := range s.RefundGuards {
			if err := guard(rec); err != nil {
				return "", err
			}
		}
		refundable := p.Captured().Sub(p.Refunded())
		if !refundable.IsPositive() {
			// Everything captured went back already: the payment takes no
			// more refunds, as a retried full refund finds it.
			return "", edge.BadData("already closed")
		}
		if refund.Amount.GreaterThan(refundable) {
			return "", edge.BadData("refund amount should be less or equal than billed amount")
		}
		at := now
		refund.CreatedAt = &at
		p.Refunds = append(p.Refunds, refund)
		return "refunded", nil
	}
}

func (s *Service) handleClose(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, edge.ErrInvalidID)
		return
	}
	s.runMove(w, r, id, c.visibility(), closeMove)
}

func closeMove(rec *store.Record, now time.Time) (string, error) {
	p := &rec.Payment
	switch {
	case p.Status == wire.StatusClosed:
		return "", edge.BadData("already closed")
	case p.Status != wire.StatusAuthorized:
		return "", edge.BadData("only authorized payments can be closed")
	case rec.AuthExpired(now):
		return "", edge.BadData("could not cancel payment: payment was already expired")
	}
	at := now
	p.Status = wire.StatusClosed
	rec.ClosedAt = &at
	return "closed", nil
}

// ParseListTime reads a created_at bound of the payments or disputes list:
// a bare date (midnight UTC), an RFC 3339 time, or an ISO 8601 datetime
// without a zone ("2026-11-21T10:00:00"), which the interface allows and
// which, its timestamps being UTC, is taken as UTC. Fractional seconds
// are accepted after the seconds in either datetime form.
func ParseListTime(v string) (time.Time, bool) {
	for _, layout := range []string{time.DateOnly, time.RFC3339Nano, "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func (s *Service) handleListPayments(w http.ResponseWriter, r *http.Request, c caller) {
	q := r.URL.Query()
	bad := edge.BadData("failed to decode request")
	limit, offset := wire.MaxPageLimit, 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			edge.WriteError(w, bad)
			return
		}
		if n > 0 {
			limit = min(n, wire.MaxPageLimit)
		}
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			edge.WriteError(w, bad)
			return
		}
		offset = n
	}
	filter := ""
	if v := q.Get("status"); v != "" {
		filter = strings.ToLower(v)
		if _, ok := statusConds[filter]; !ok {
			edge.WriteError(w, bad)
			return
		}
	}
	var bounds [2]*int64
	for i, name := range []string{"created_at__gte", "created_at__lte"} {
		if v := q.Get(name); v != "" {
			t, ok := ParseListTime(v)
			if !ok {
				edge.WriteError(w, bad)
				return
			}
			ns := store.NanosBound(t)
			bounds[i] = &ns
		}
	}
	payments, total, err := s.listPayments(r.Context(), listQuery{
		merchant: c.merchant.Code, isTest: c.isTest, status: filter, gte: bounds[0], lte: bounds[1],
	}, limit, offset)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, struct {
		Payments   []json.RawMessage `json:"payments"`
		Pagination wire.Pagination   `json:"pagination"`
	}{payments, wire.Pagination{Limit: limit, Offset: offset, TotalCount: total}})
}
