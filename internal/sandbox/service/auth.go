package service

import (
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// caller is who a request acts for, after authentication.
type caller struct {
	merchant *store.Merchant
	isTest   bool
}

func (c caller) visibility() *store.Visibility {
	return &store.Visibility{MerchantCode: c.merchant.Code, IsTest: c.isTest}
}

// authMessages are the 401 messages of one family of endpoints. The
// service does not word a refused key the same way everywhere: its Errors
// tables give each family its own, so the policy is chosen per route when
// the route is registered rather than patched into handlers.
type authMessages struct {
	noBearer  string // header absent, or not a Bearer one
	notSecret string // a bearer value that cannot be a secret key (no sk_ prefix)
	unknown   string // a well-formed key that no merchant has
}

var (
	// authGeneral is what Authentication rule 2 lists as seen, used where
	// an endpoint's table names no message of its own.
	authGeneral = authMessages{noBearer: "missing Bearer scheme", notSecret: "invalid secret key", unknown: "api key not found"}
	// authCheckout: session creation answers "merchant is null" for a
	// missing or wrong Authorization, the message it also gives for a
	// merchant_code the key is not bound to.
	authCheckout = authMessages{noBearer: "merchant is null", notSecret: "merchant is null", unknown: "merchant is null"}
	// authPaymentHooks: "invalid secret key" when the key is missing or
	// malformed, "api key not found" for a well-formed unknown one.
	authPaymentHooks = authMessages{noBearer: "invalid secret key", notSecret: "invalid secret key", unknown: "api key not found"}
	// authDisputeHooks: the table lists one 401 message only.
	authDisputeHooks = authMessages{noBearer: "invalid secret key", notSecret: "invalid secret key", unknown: "invalid secret key"}
)

// authenticate reads the bearer key. A header that is absent or not a
// Bearer one, a value that cannot be a secret key (no sk_ prefix) and a
// well-formed key nobody has are each 401, worded by msgs. A key of the
// other region's merchant is 403 whatever the family.
func (s *Service) authenticate(r *http.Request, region string, msgs authMessages) (caller, error) {
	h := r.Header.Get("Authorization")
	scheme, key, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return caller{}, edge.NotAuthorized(msgs.noBearer)
	}
	key = strings.TrimSpace(key)
	if !strings.HasPrefix(key, "sk_") {
		return caller{}, edge.NotAuthorized(msgs.notSecret)
	}
	info, found := s.Keys[key]
	if !found {
		return caller{}, edge.NotAuthorized(msgs.unknown)
	}
	if info.Merchant.Region != region {
		return caller{}, edge.ErrWrongRegion
	}
	return caller{merchant: info.Merchant, isTest: info.IsTest}, nil
}

// authed wraps an API handler with authentication, refusals worded by msgs.
func (s *Service) authed(region string, msgs authMessages, h func(http.ResponseWriter, *http.Request, caller)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.stampDate(w, r)
		c, err := s.authenticate(r, region, msgs)
		if err != nil {
			edge.WriteError(w, err)
			return
		}
		h(w, r, c)
	}
}

// authedDating is authed for a handler that reads the sandbox's clock as
// part of its own work (a payment's read in the same query, a move in its
// transaction, a checkout's one read of the time it is made at) and sets
// Date from it (setDate): a request reads the clock once, not twice. An
// answer the handler writes before that read is dated by DateMiddleware,
// or by stampDate.
func (s *Service) authedDating(region string, msgs authMessages, h func(http.ResponseWriter, *http.Request, caller)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := s.authenticate(r, region, msgs)
		if err != nil {
			s.stampDate(w, r)
			edge.WriteError(w, err)
			return
		}
		h(w, r, c)
	}
}

// stampDate gives the answer the sandbox's clock as its Date, advances
// included, as the service's Date and its created_at times share one
// clock: a client tells by them whether a move predates its request.
func (s *Service) stampDate(w http.ResponseWriter, r *http.Request) {
	if now, err := s.CurrentTime(r.Context()); err == nil {
		setDate(w, now)
	}
}

// setDate sets Date to now, to the second. The value of the latest
// second is kept (lastDate): the answers of a busy second share it rather
// than each format and allocate its own.
func setDate(w http.ResponseWriter, now time.Time) {
	sec := now.Unix()
	d := lastDate.Load()
	if d == nil || d.sec != sec {
		d = &dateValue{sec: sec, value: []string{now.UTC().Format(http.TimeFormat)}}
		lastDate.Store(d)
	}
	w.Header()["Date"] = d.value
}

type dateValue struct {
	sec   int64
	value []string // read only: shared by every answer of that second
}

var lastDate atomic.Pointer[dateValue]

// Routes registers the service's own endpoints of one region. Patterns
// carry their method; a wrong method falls through to a plain 404 (see
// buildHandler).
func (s *Service) Routes(mux *http.ServeMux, region string) {
	s.checkoutRoutes(mux, region)
	s.paymentRoutes(mux, region)
	s.webhookRoutes(mux, region)
	s.disputeWebhookRoutes(mux, region)
	s.disputeRoutes(mux, region)
}
