package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
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

// otpRejectedEmail is the buyer whose approval attempt ends REJECTED, as if
// the one-time password check failed.
const otpRejectedEmail = "otp.rejected@tabby.ai"

func (s *Sandbox) checkoutRoutes(mux *http.ServeMux, region string) {
	mux.HandleFunc("POST /api/v2/checkout", s.authed(region, authCheckout, s.handleCreateCheckout))
	mux.HandleFunc("GET /api/v2/checkout/{id}", s.authed(region, authGeneral, s.handleGetCheckout))
	mux.HandleFunc("GET /api/v2/checkout/{id}/hpp_link_qr", s.handleCheckoutQR)
}

// baseURL is where this region's sandbox is reached from outside, for the
// links put into sessions.
func (s *Sandbox) baseURL(r *http.Request, region string) string {
	if u := s.publicURLs[region]; u != "" {
		return u
	}
	host := r.Host
	if host == "" {
		host = "127.0.0.1"
	}
	return "http://" + host
}

func (s *Sandbox) handleCreateCheckout(w http.ResponseWriter, r *http.Request, c caller) {
	body, err := readBody(r)
	if err != nil {
		writeError(w, bodyRefusal(err, badData("could not decode request")))
		return
	}
	var req api.CheckoutRequest
	var present struct {
		Payment map[string]json.RawMessage `json:"payment"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, badData("could not decode request"))
		return
	}
	_ = json.Unmarshal(body, &present) // the same bytes decoded above; only presence matters
	if req.MerchantCode != c.merchant.Code {
		writeError(w, notAuthorized("merchant is null"))
		return
	}
	if req.Token != nil && !c.merchant.TokensEnabled {
		writeError(w, errTokensDisabled)
		return
	}
	_, amountSent := present.Payment["amount"]
	if err := validateCheckout(&req, amountSent); err != nil {
		writeError(w, err)
		return
	}
	if req.Payment.Currency != c.merchant.Currency {
		writeError(w, badData(fmt.Sprintf("could not create payment: only '%s' is supported, but got '%s'", c.merchant.Currency, req.Payment.Currency)))
		return
	}
	if err := checkPositive(&req.Payment); err != nil {
		writeError(w, err)
		return
	}
	now, err := s.now(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	rec := s.newRecord(&req, c, now)
	if err := s.insertRecord(r.Context(), rec, c.isTest); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.sessionView(rec, now, s.baseURL(r, c.merchant.Region), false))
}

func (s *Sandbox) newRecord(req *api.CheckoutRequest, c caller, now time.Time) *record {
	created := now.Truncate(time.Millisecond)
	expires := created.Add(paymentTimeout)
	p := req.Payment
	p.ID = uuid.NewString()
	p.Status = api.StatusCreated
	p.IsTest = c.isTest
	p.CreatedAt = &created
	p.ExpiresAt = &expires
	p.Captures = []api.Capture{}
	p.Refunds = []api.Refund{}
	rec := &record{
		Payment:          p,
		SessionID:        uuid.NewString(),
		MerchantCode:     c.merchant.Code,
		Region:           c.merchant.Region,
		Lang:             req.Lang,
		MerchantURLs:     req.MerchantURLs,
		Token:            req.Token,
		SessionStatus:    api.SessionCreated,
		SessionExpiresAt: created.Add(sessionLifetime),
	}
	if reason := preScore(&p); reason != "" {
		rec.SessionStatus = api.SessionRejected
		rec.RejectionReason = reason
	}
	return rec
}

// preScore answers the rejection reason of the sandbox's pre-scoring, or "".
func preScore(p *api.Payment) string {
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
func (s *Sandbox) sessionView(rec *record, now time.Time, base string, retrieval bool) *api.CheckoutSession {
	p := rec.Payment
	status := p.Status
	if status == api.StatusCreated && p.CreatedAt != nil && !now.Before(p.CreatedAt.Add(paymentTimeout)) {
		status = api.StatusExpired
	}
	sub := api.Payment{
		ID: p.ID, Amount: p.Amount, Currency: p.Currency, Description: p.Description,
		Buyer: p.Buyer, ShippingAddress: p.ShippingAddress, Order: p.Order,
		BuyerHistory: p.BuyerHistory, OrderHistory: p.OrderHistory,
		CreatedAt: p.CreatedAt, Status: status, IsTest: p.IsTest,
		Captures: []api.Capture{}, Refunds: []api.Refund{},
		Meta: p.Meta, Attachment: p.Attachment,
	}
	sess := &api.CheckoutSession{
		ID:           rec.SessionID,
		Status:       rec.SessionStatus,
		Token:        rec.Token,
		Payment:      sub,
		MerchantURLs: rec.MerchantURLs,
	}
	inst := &sess.Configuration.Products.Installments
	inst.Type = "installments"
	sess.Configuration.AvailableProducts.Installments = []api.ProductLink{}
	if rec.SessionStatus == api.SessionRejected {
		reason := rec.RejectionReason
		inst.RejectionReason = &reason
	} else {
		inst.IsAvailable = true
		sess.Configuration.AvailableProducts.Installments = []api.ProductLink{{
			WebURL: base + "/_sandbox/hpp/" + rec.SessionID,
			QRCode: base + "/api/v2/checkout/" + rec.SessionID + "/hpp_link_qr",
		}}
	}
	if retrieval {
		if rec.SessionStatus != api.SessionRejected {
			switch status {
			case api.StatusAuthorized, api.StatusClosed:
				sess.Status = "approved"
			case api.StatusRejected:
				sess.Status = api.SessionRejected
			case api.StatusExpired:
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
		m := s.merchants[rec.MerchantCode]
		name := rec.MerchantCode
		if m != nil {
			name = m.Name
		}
		sess.Merchant = &api.Merchant{Name: name, Address: regionAddress(rec.Region), Logo: ""}
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

func (s *Sandbox) handleGetCheckout(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errInvalidID)
		return
	}
	rec, err := s.loadSession(r.Context(), id, c.visibility())
	if err != nil {
		writeError(w, err)
		return
	}
	now, err := s.now(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.sessionView(rec, now, s.baseURL(r, c.merchant.Region), true))
}

// handleCheckoutQR answers a PNG of the session's checkout URL. It needs no
// key: the qr_code URL is meant to be shown as an image to the customer.
func (s *Sandbox) handleCheckoutQR(w http.ResponseWriter, r *http.Request) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errInvalidID)
		return
	}
	rec, err := s.loadSession(r.Context(), id, nil)
	if err != nil {
		writeError(w, err)
		return
	}
	png, err := qrPNG(s.baseURL(r, rec.Region) + "/_sandbox/hpp/" + rec.SessionID)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", fmt.Sprint(len(png)))
	_, _ = io.Copy(w, bytes.NewReader(png))
}

var (
	emailPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`) })
	// attachmentTypeExpr is the client's rule (internal/api), so that a
	// content type the client lets through is not refused here: a vendor
	// of letters, digits, '.', '+', '-' and '_', in any case, as media
	// types are case-insensitive.
	attachmentTypeExpr = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^application/vnd\.[a-z0-9][a-z0-9.+_-]*\.v1\+json$`)
	})
)

// validateCheckout checks the fields of a creation request and answers every
// problem at once in the field-validation form.
func validateCheckout(req *api.CheckoutRequest, amountSent bool) error {
	var errs []fieldError
	required := func(path string) {
		errs = append(errs, fieldError{Field: path, Code: "required", Message: "is required"})
	}
	invalid := func(path, msg string) {
		errs = append(errs, fieldError{Field: path, Code: "invalid_value", Message: msg})
	}
	places := func(path string, d *decimal.Decimal) {
		if d != nil && -d.Exponent() > money.Places(req.Payment.Currency) {
			invalid(path, placesMessage(req.Payment.Currency, d))
		}
	}
	if req.Lang == "" {
		required("$.lang")
	} else if req.Lang != "en" && req.Lang != "ar" {
		invalid("$.lang", "must be one of: ar, en")
	}
	p := &req.Payment
	if !amountSent {
		required("$.payment.amount")
	} else {
		places("$.payment.amount", &p.Amount)
	}
	if p.Currency == "" {
		required("$.payment.currency")
	} else if !slices.Contains(money.Currencies(), p.Currency) {
		// An unknown code (or a known one not in upper case, as ISO 4217
		// writes them) is an invalid value. A known code that is not the
		// merchant's is refused later, in the simple form.
		invalid("$.payment.currency", "must be one of: "+strings.Join(money.Currencies(), ", "))
	}
	if p.Buyer == nil {
		required("$.payment.buyer")
	} else {
		validateBuyer("$.payment.buyer", p.Buyer, true, required, invalid)
	}
	if p.ShippingAddress == nil {
		required("$.payment.shipping_address")
	} else {
		validateAddress("$.payment.shipping_address", p.ShippingAddress, required)
	}
	if p.Order == nil {
		required("$.payment.order")
	} else {
		if p.Order.ReferenceID == "" {
			required("$.payment.order.reference_id")
		}
		places("$.payment.order.tax_amount", p.Order.TaxAmount)
		places("$.payment.order.shipping_amount", p.Order.ShippingAmount)
		places("$.payment.order.discount_amount", p.Order.DiscountAmount)
		for i := range p.Order.Items {
			it := &p.Order.Items[i]
			path := fmt.Sprintf("$.payment.order.items[%d]", i)
			if it.Title == "" {
				required(path + ".title")
			}
			if it.Category == "" {
				required(path + ".category")
			}
			places(path+".unit_price", &it.UnitPrice)
			places(path+".discount_amount", it.DiscountAmount)
		}
	}
	if p.BuyerHistory == nil {
		required("$.payment.buyer_history")
	} else if p.BuyerHistory.RegisteredSince == nil {
		required("$.payment.buyer_history.registered_since")
	}
	for i := range p.OrderHistory {
		h := &p.OrderHistory[i]
		path := fmt.Sprintf("$.payment.order_history[%d]", i)
		if h.PurchasedAt == nil {
			required(path + ".purchased_at")
		}
		if h.Status == "" {
			required(path + ".status")
		}
		places(path+".amount", &h.Amount)
		if h.Buyer != nil {
			validateBuyer(path+".buyer", h.Buyer, false, required, invalid)
		}
	}
	if a := p.Attachment; a != nil {
		if !attachmentTypeExpr().MatchString(a.ContentType) {
			invalid("$.payment.attachment.content_type", "must be application/vnd.<vendor>.v1+json")
		}
		if !json.Valid([]byte(a.Body)) {
			invalid("$.payment.attachment.body", "must hold serialized JSON")
		}
	}
	if u := req.MerchantURLs; u != nil {
		for _, f := range []struct{ name, value string }{{"success", u.Success}, {"cancel", u.Cancel}, {"failure", u.Failure}} {
			if f.value == "" {
				continue
			}
			if parsed, err := url.Parse(f.value); err != nil || !parsed.IsAbs() || parsed.Host == "" {
				invalid("$.merchant_urls."+f.name, "must be an absolute URL")
			} else if !httpURL(parsed) {
				invalid("$.merchant_urls."+f.name, "must be an http or https URL")
			}
		}
	}
	if len(errs) > 0 {
		return fieldErrors(errs...)
	}
	return nil
}

func validateBuyer(path string, b *api.Buyer, strict bool, required func(string), invalid func(string, string)) {
	if strict {
		if b.Name == "" {
			required(path + ".name")
		}
		if b.Email == "" {
			required(path + ".email")
		}
		if b.Phone == "" {
			required(path + ".phone")
		}
	}
	if b.Email != "" && !emailPattern().MatchString(b.Email) {
		invalid(path+".email", "is not a valid email address")
	}
	if b.DOB != "" {
		if _, err := time.Parse(time.DateOnly, b.DOB); err != nil {
			invalid(path+".dob", "must be a date YYYY-MM-DD")
		}
	}
}

func validateAddress(path string, a *api.ShippingAddress, required func(string)) {
	if a.City == "" {
		required(path + ".city")
	}
	if a.Address == "" {
		required(path + ".address")
	}
	if a.Zip == "" {
		required(path + ".zip")
	}
}

func placesMessage(currency string, d *decimal.Decimal) string {
	return fmt.Sprintf("money supports only %d decimal places, but got: %d", money.Places(currency), -d.Exponent())
}

// checkPositive is the service's second line of validation, answered in the
// simple form.
func checkPositive(p *api.Payment) error {
	if !p.Amount.IsPositive() {
		return badData("could not create payment: should be positive")
	}
	if o := p.Order; o != nil {
		for _, d := range []*decimal.Decimal{o.TaxAmount, o.ShippingAmount, o.DiscountAmount} {
			if d != nil && d.IsNegative() {
				return badData("could not create payment: order amounts should be positive or zero")
			}
		}
		for _, it := range o.Items {
			if it.Quantity < 1 {
				return badData("could not create payment: item quantity should be positive")
			}
			if it.UnitPrice.IsNegative() {
				return badData("could not create payment: item unit price should be positive or zero")
			}
			if it.DiscountAmount != nil && it.DiscountAmount.IsNegative() {
				return badData("could not create payment: item discount amount should be positive or zero")
			}
		}
	}
	for _, h := range p.OrderHistory {
		if h.Amount.IsNegative() {
			return badData("could not create payment: order history amount should be positive or zero")
		}
	}
	return nil
}
