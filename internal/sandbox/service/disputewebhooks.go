package service

import (
	"errors"
	"net/http"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// Dispute webhooks (/api/v1/dispute-webhooks): live keys only, the
// X-Merchant-Code header on every request, at most 4 per merchant, a
// normalised URL unique per merchant, the header value masked in every
// answer. Every refusal of the request itself is 400 "bad_request".

var (
	errNoTestMode         = &edge.Refusal{Status: 403, ErrorType: "no_permission", Message: "disputes have no test mode"}
	errHookBadRequest     = edge.BadData("bad_request")
	errNoSuchDisputeHook  = &edge.Refusal{Status: 404, ErrorType: "not_found", Message: "dispute webhook not found"}
	errMerchantCodeNotKey = edge.NotAuthorized("invalid secret key")
)

// liveOnly wraps a dispute or dispute-webhook handler: a test key is
// refused with 403 whatever the rest of the request. msgs words the 401s,
// which differ between disputes and dispute webhooks.
func (s *Service) liveOnly(region string, msgs authMessages, h func(http.ResponseWriter, *http.Request, caller)) http.HandlerFunc {
	return s.authed(region, msgs, func(w http.ResponseWriter, r *http.Request, c caller) {
		if c.isTest {
			edge.WriteError(w, errNoTestMode)
			return
		}
		h(w, r, c)
	})
}

// merchantHeader adds the X-Merchant-Code rule of dispute webhooks: it
// must be there (else 400), and name the key's merchant (else 401, as a
// key that does not act for that merchant; our choice, the interface
// names no status for it).
func (s *Service) merchantHeader(region string, h func(http.ResponseWriter, *http.Request, caller)) http.HandlerFunc {
	return s.liveOnly(region, authDisputeHooks, func(w http.ResponseWriter, r *http.Request, c caller) {
		code := r.Header.Get("X-Merchant-Code") // Header.Get is case-insensitive
		switch {
		case code == "":
			edge.WriteError(w, errHookBadRequest)
		case code != c.merchant.Code:
			edge.WriteError(w, errMerchantCodeNotKey)
		default:
			h(w, r, c)
		}
	})
}

// disputeHooks are dispute webhooks: live only (no mode scopes them), at
// most wire.MaxDisputeWebhooks per merchant, every refusal of the request
// itself a 400 "bad_request".
var disputeHooks = &hookResource{
	kind: outbox.HookKindDispute, noun: "dispute webhook", max: wire.MaxDisputeWebhooks, badID: errHookBadRequest,
	fromBody: func(s *Service, r *http.Request, c caller, id, _ string) (*outbox.HookRow, error) {
		return s.disputeHookFromBody(r, c, id)
	},
	refuse: func(_ string, err error) error { return disputeHookError(err) },
	view:   func(h *outbox.HookRow) any { return disputeHookOf(h) },
}

func (s *Service) disputeWebhookRoutes(mux *http.ServeMux, region string) {
	s.hookRoutes(mux, "/api/v1/dispute-webhooks", disputeHooks, func(h hookHandler) http.HandlerFunc {
		return s.merchantHeader(region, h)
	})
}

func disputeHookOf(h *outbox.HookRow) wire.DisputeWebhook {
	return wire.DisputeWebhook{ID: h.ID, URL: h.URL, Header: h.MaskedHeader()}
}

func disputeHookError(err error) error {
	switch {
	case errors.Is(err, outbox.ErrHookNotFound):
		return errNoSuchDisputeHook
	case errors.Is(err, outbox.ErrHookExists), errors.Is(err, outbox.ErrHookMax):
		return errHookBadRequest
	}
	return err
}

func (s *Service) disputeHookFromBody(r *http.Request, c caller, id string) (*outbox.HookRow, error) {
	b, err := decodeHookBody(r)
	if err != nil {
		return nil, edge.BodyRefusal(err, errHookBadRequest)
	}
	if b.URL == nil {
		return nil, errHookBadRequest
	}
	normalised, err := s.Outbox.CheckWebhookURL(r.Context(), *b.URL, false)
	if err != nil {
		return nil, errHookBadRequest
	}
	if err := outbox.CheckHeader(b.Header); err != nil {
		return nil, errHookBadRequest
	}
	return &outbox.HookRow{ID: id, Kind: outbox.HookKindDispute, MerchantCode: c.merchant.Code, URL: normalised, Header: b.Header}, nil
}
