package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
	fastjson "github.com/segmentio/encoding/json"
	"github.com/shopspring/decimal"
	"github.com/skip2/go-qrcode"
)

// Pre-scoring of the sandbox, mirroring the service's test conventions:
// a buyer phone ending in notAvailablePhoneSuffix is refused with
// not_available, an amount above the currency's limit with
// order_amount_too_high. Both answer 200 with session status "rejected".
const notAvailablePhoneSuffix = "0002"

var amountLimits = map[string]decimal.Decimal{
	"AED": decimal.NewFromInt(50000),
	"SAR": decimal.NewFromInt(50000),
	"KWD": decimal.NewFromInt(5000),
}

// OTPRejectedEmail is the buyer whose approval attempt ends REJECTED, as if
// the one-time password check failed.
const OTPRejectedEmail = "otp.rejected@tabby.ai"

func (s *Service) checkoutRoutes(mux *http.ServeMux, region string) {
	mux.HandleFunc("POST /api/v2/checkout", s.authedDating(region, authCheckout, s.handleCreateCheckout))
	mux.HandleFunc("GET /api/v2/checkout/{id}", s.authed(region, authGeneral, s.handleGetCheckout))
	mux.HandleFunc("GET /api/v2/checkout/{id}/hpp_link_qr", s.handleCheckoutQR)
}

// baseURL is where this region's sandbox is reached from outside, for the
// links put into sessions.
func (s *Service) baseURL(r *http.Request, region string) string {
	if u := s.PublicURLs[region]; u != "" {
		return u
	}
	host := r.Host
	if host == "" {
		host = "127.0.0.1"
	}
	return "http://" + host
}

// checkoutBody is wire.CheckoutRequest as the sandbox decodes it: its
// payment without wire.Payment's UnmarshalJSON, which has the decoder
// find the payment's end, then checks and decodes those bytes again and
// copies them to keep them (Raw, which the sandbox never reads): a third
// of a checkout's decoding. TestCheckoutBodyIsTheRequest keeps the two
// alike, field for field.
type checkoutBody struct {
	Payment      plainPayment       `json:"payment"`
	Lang         string             `json:"lang"`
	MerchantCode string             `json:"merchant_code"`
	MerchantURLs *wire.MerchantURLs `json:"merchant_urls,omitempty"`
	Token        *string            `json:"token"`
}

// plainPayment is wire.Payment's fields without its methods.
type plainPayment wire.Payment

func (b *checkoutBody) request() wire.CheckoutRequest {
	return wire.CheckoutRequest{Payment: wire.Payment(b.Payment), Lang: b.Lang, MerchantCode: b.MerchantCode,
		MerchantURLs: b.MerchantURLs, Token: b.Token}
}

// decodeCheckout decodes a checkout body as json.Unmarshal does, in half
// the time: the same request from every body encoding/json decodes, and an
// error for every body it refuses (FuzzDecodeCheckoutIsEncodingJSON).
// Only the decoding is another package's; the answers are encoded by
// encoding/json, whose bytes the clients see.
func decodeCheckout(body []byte, b *checkoutBody) error { return fastjson.Unmarshal(body, b) }

// checkoutHead is what a checkout says of its merchant.
type checkoutHead struct {
	MerchantCode string  `json:"merchant_code"`
	Token        *string `json:"token"`
}

func (s *Service) handleCreateCheckout(w http.ResponseWriter, r *http.Request, c caller) {
	bt, err := edge.ReadBodyTree(r)
	body := bt.Bytes
	if err != nil {
		edge.WriteError(w, edge.BodyRefusal(err, edge.BadData("could not decode request")))
		return
	}
	// The rules are the client's own (internal/api), so the sandbox refuses
	// exactly what `bnpl checkout create` refuses before sending. In the
	// service's order: what cannot be decoded (not JSON, a value of the
	// wrong type), then the merchant and its token, then malformed fields,
	// all together in the field-validation form, then the currency of the
	// merchant, then values out of range in the simple form.
	if !bt.Decoded {
		edge.WriteError(w, edge.BadData("could not decode request"))
		return
	}
	findings := wire.CheckCheckoutTree(body, bt.Doc, nil)
	var malformed []edge.FieldError
	var outOfRange *wire.Finding
	for i, f := range findings {
		switch {
		case f.Type:
			edge.WriteError(w, edge.BadData("could not decode request"))
			return
		case f.Value:
			if outOfRange == nil {
				outOfRange = &findings[i]
			}
		default:
			malformed = append(malformed, edge.FieldError{Field: f.Path, Code: f.Code, Message: f.Service})
		}
	}
	// The merchant and its token are read from the whole request when it
	// decodes (what the rules accept always does: FuzzValidateCheckout
	// holds them to it), else on their own, so that a malformed body still
	// answers for its merchant first.
	var decodedReq checkoutBody
	reqErr := decodeCheckout(body, &decodedReq)
	req := decodedReq.request()
	head := checkoutHead{MerchantCode: req.MerchantCode, Token: req.Token}
	if reqErr != nil {
		head = checkoutHead{}
		if err := json.Unmarshal(body, &head); err != nil {
			edge.WriteError(w, edge.BadData("could not decode request"))
			return
		}
	}
	if head.MerchantCode != c.merchant.Code {
		edge.WriteError(w, edge.NotAuthorized("merchant is null"))
		return
	}
	if head.Token != nil && !c.merchant.TokensEnabled {
		edge.WriteError(w, edge.ErrTokensDisabled)
		return
	}
	if len(malformed) > 0 {
		edge.WriteError(w, edge.FieldErrors(malformed...))
		return
	}
	if reqErr != nil {
		edge.WriteError(w, edge.BadData("could not decode request"))
		return
	}
	if req.Payment.Currency != c.merchant.Currency {
		edge.WriteError(w, edge.BadData(fmt.Sprintf("could not create payment: only '%s' is supported, but got '%s'", c.merchant.Currency, req.Payment.Currency)))
		return
	}
	if outOfRange != nil {
		edge.WriteError(w, edge.BadData(outOfRange.Service))
		return
	}
	s.createCheckout(w, r, c, &req)
}

// createCheckout makes the payment and session of a checkout the rules
// accepted, at the sandbox's time. That one read of the clock dates the
// answer too (the route is authedDating); a refusal before it is dated by
// DateMiddleware.
func (s *Service) createCheckout(w http.ResponseWriter, r *http.Request, c caller, req *wire.CheckoutRequest) {
	now, err := s.CurrentTime(r.Context())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	setDate(w, now)
	rec := s.newRecord(r.Context(), req, c, now)
	if err := s.InsertRecord(r.Context(), rec, c.isTest); err != nil {
		edge.WriteError(w, err)
		return
	}
	b, err := createdAnswer(s.sessionView(rec, now, s.baseURL(r, c.merchant.Region), false), rec)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteRawJSON(w, b)
}

// createdAnswer encodes sess, the answer to the checkout that created
// rec, as json.Marshal does: with the payment's encoding taken from the
// view the state stored (rec.View) where spliceCreated can, rather than
// made again. The payment is a third of the answer's encoding, and the
// view was encoded a moment before.
func createdAnswer(sess *wire.CheckoutSession, rec *store.Record) ([]byte, error) {
	if b, ok := spliceCreated(sess, rec); ok {
		return b, nil
	}
	return json.Marshal(sess)
}

// spliceCreated encodes sess with rec's view for its payment: the
// session's payment is the view less its expires_at, which a checkout's
// answer leaves out (sessionView), while the payment is as created (no
// moves, its status unchanged). false: the view is not that (none kept,
// a payment since changed, the expiry not where it is written).
func spliceCreated(sess *wire.CheckoutSession, rec *store.Record) ([]byte, bool) {
	p, sub := &rec.Payment, &sess.Payment
	if rec.View == nil || p.ExpiresAt == nil || p.CreatedAt == nil || sub.Status != p.Status ||
		len(p.Captures) > 0 || len(p.Refunds) > 0 || p.Captures == nil || p.Refunds == nil {
		return nil, false
	}
	created, err1 := json.Marshal(p.CreatedAt)
	expires, err2 := json.Marshal(p.ExpiresAt)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	// The view's first member named expires_at is the payment's own: the
	// members before it are typed, and none of their types has one. That
	// it follows created_at's value is checked all the same.
	cut := append(append([]byte(`,"expires_at":`), expires...), ',')
	at := bytes.Index(rec.View, cut)
	if at < 0 || !bytes.HasSuffix(rec.View[:at], append([]byte(`"created_at":`), created...)) {
		return nil, false
	}
	envelope := *sess
	envelope.Payment = wire.Payment{}
	out, err := json.Marshal(&envelope)
	if err != nil {
		return nil, false
	}
	hole := bytes.Index(out, emptyPayment)
	if hole < 0 {
		return nil, false
	}
	answer := make([]byte, 0, len(out)-len(emptyPayment)+len(`"payment":`)+len(rec.View)-len(cut)+1)
	answer = append(append(answer, out[:hole]...), `"payment":`...)
	answer = append(append(answer, rec.View[:at]...), ',')
	answer = append(answer, rec.View[at+len(cut):]...)
	return append(answer, out[hole+len(emptyPayment):]...), true
}

// emptyPayment is a session's member payment as json.Marshal encodes a
// zero payment: where createdAnswer puts the view. Written out rather
// than encoded when the package starts, which every command would pay
// for; TestEmptyPaymentIsAZeroPaymentEncoded holds it to json.Marshal.
var emptyPayment = []byte(`"payment":{"id":"","amount":"0","currency":"","is_test":false,"captures":null,"refunds":null}`)

func (s *Service) newRecord(ctx context.Context, req *wire.CheckoutRequest, c caller, now time.Time) *store.Record {
	created := now.Truncate(time.Millisecond)
	expires := created.Add(store.PaymentTimeout)
	p := req.Payment
	p.ID = s.NewID(ctx)
	p.Status = wire.StatusCreated
	p.IsTest = c.isTest
	p.CreatedAt = &created
	p.ExpiresAt = &expires
	p.Captures = []wire.Capture{}
	p.Refunds = []wire.Refund{}
	rec := &store.Record{Payment: p, Session: store.Session{
		SessionID:        s.NewID(ctx),
		MerchantCode:     c.merchant.Code,
		Region:           c.merchant.Region,
		Lang:             req.Lang,
		MerchantURLs:     req.MerchantURLs,
		Token:            req.Token,
		SessionStatus:    wire.SessionCreated,
		SessionExpiresAt: created.Add(store.SessionLifetime),
	}}
	if reason := preScore(&p); reason != "" {
		rec.SessionStatus = wire.SessionRejected
		rec.RejectionReason = reason
	}
	return rec
}

// preScore answers the rejection reason of the sandbox's pre-scoring, or "".
func preScore(p *wire.Payment) string {
	if p.Buyer != nil && strings.HasSuffix(strings.TrimSpace(p.Buyer.Phone), notAvailablePhoneSuffix) {
		return "not_available"
	}
	if limit, ok := amountLimits[p.Currency]; ok && p.Amount.GreaterThan(limit) {
		return "order_amount_too_high"
	}
	return ""
}

// sessionView is the CheckoutSession as the service answers it. Creation
// answers fewer fields than a later read (retrieval).
func (s *Service) sessionView(rec *store.Record, now time.Time, base string, retrieval bool) *wire.CheckoutSession {
	p := rec.Payment
	status := p.Status
	if status == wire.StatusCreated && p.CreatedAt != nil && !now.Before(p.CreatedAt.Add(store.PaymentTimeout)) {
		status = wire.StatusExpired
	}
	sub := wire.Payment{
		ID: p.ID, Amount: p.Amount, Currency: p.Currency, Description: p.Description,
		Buyer: p.Buyer, ShippingAddress: p.ShippingAddress, Order: p.Order,
		BuyerHistory: p.BuyerHistory, OrderHistory: p.OrderHistory,
		CreatedAt: p.CreatedAt, Status: status, IsTest: p.IsTest,
		Captures: []wire.Capture{}, Refunds: []wire.Refund{},
		Meta: p.Meta, Attachment: p.Attachment,
	}
	sess := &wire.CheckoutSession{
		ID:           rec.SessionID,
		Status:       rec.SessionStatus,
		Token:        rec.Token,
		Payment:      sub,
		MerchantURLs: rec.MerchantURLs,
	}
	inst := &sess.Configuration.Products.Installments
	inst.Type = "installments"
	sess.Configuration.AvailableProducts.Installments = []wire.ProductLink{}
	if rec.SessionStatus == wire.SessionRejected {
		reason := rec.RejectionReason
		inst.RejectionReason = &reason
	} else {
		inst.IsAvailable = true
		sess.Configuration.AvailableProducts.Installments = []wire.ProductLink{{
			WebURL: base + "/_sandbox/hpp/" + rec.SessionID,
			QRCode: base + "/api/v2/checkout/" + rec.SessionID + "/hpp_link_qr",
		}}
	}
	if retrieval {
		if rec.SessionStatus != wire.SessionRejected {
			switch status {
			case wire.StatusAuthorized, wire.StatusClosed:
				sess.Status = "approved"
			case wire.StatusRejected:
				sess.Status = wire.SessionRejected
			case wire.StatusExpired:
				sess.Status = "expired"
			default:
				if !now.Before(rec.SessionExpiresAt) {
					sess.Status = "expired"
				}
			}
		}
		exp := rec.SessionExpiresAt
		sess.Configuration.ExpiresAt = &exp
		sess.Lang = rec.Lang
		sess.MerchantCode = rec.MerchantCode
		m := s.MerchantsByCode[rec.MerchantCode]
		name := rec.MerchantCode
		if m != nil {
			name = m.Name
		}
		sess.Merchant = &wire.Merchant{Name: name, Address: regionAddress(rec.Region), Logo: ""}
		if p.Buyer != nil && p.Buyer.DOB != "" {
			if d, err := time.Parse(time.DateOnly, p.Buyer.DOB); err == nil {
				b := *p.Buyer
				b.DOB = d.UTC().Format(time.RFC3339)
				sess.Payment.Buyer = &b
			}
		}
	}
	return sess
}

func regionAddress(region string) string {
	if region == "sa" {
		return "Riyadh, Saudi Arabia"
	}
	return "Dubai, United Arab Emirates"
}

func (s *Service) handleGetCheckout(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, edge.ErrInvalidID)
		return
	}
	rec, err := s.LoadSession(r.Context(), id, c.visibility())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	now, err := s.CurrentTime(r.Context())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, s.sessionView(rec, now, s.baseURL(r, c.merchant.Region), true))
}

// handleCheckoutQR answers a PNG of the session's checkout URL. It needs no
// key: the qr_code URL is meant to be shown as an image to the customer.
func (s *Service) handleCheckoutQR(w http.ResponseWriter, r *http.Request) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, edge.ErrInvalidID)
		return
	}
	rec, err := s.LoadSession(r.Context(), id, nil)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	png, err := qrPNG(s.baseURL(r, rec.Region) + "/_sandbox/hpp/" + rec.SessionID)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", fmt.Sprint(len(png)))
	_, _ = io.Copy(w, bytes.NewReader(png))
}

// qrPNG draws the QR code of content as a PNG image.
func qrPNG(content string) ([]byte, error) {
	return qrcode.Encode(content, qrcode.Medium, 256)
}
