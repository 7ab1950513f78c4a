package sandbox

import (
	"errors"
	"net/http"

	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/google/uuid"
)

// Dispute webhooks (/api/v1/dispute-webhooks): live keys only, the
// X-Merchant-Code header on every request, at most 4 per merchant, a
// normalised URL unique per merchant, the header value masked in every
// answer. Every refusal of the request itself is 400 "bad_request".

var (
	errNoTestMode         = &apiError{status: 403, errorType: "no_permission", message: "disputes have no test mode"}
	errHookBadRequest     = badData("bad_request")
	errNoSuchDisputeHook  = &apiError{status: 404, errorType: "not_found", message: "dispute webhook not found"}
	errMerchantCodeNotKey = notAuthorized("invalid secret key")
)

// liveOnly wraps a dispute or dispute-webhook handler: a test key is
// refused with 403 whatever the rest of the request. msgs words the 401s,
// which differ between disputes and dispute webhooks.
func (s *Service) liveOnly(region string, msgs authMessages, h func(http.ResponseWriter, *http.Request, caller)) http.HandlerFunc {
	return s.authed(region, msgs, func(w http.ResponseWriter, r *http.Request, c caller) {
		if c.isTest {
			writeError(w, errNoTestMode)
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
			writeError(w, errHookBadRequest)
		case code != c.merchant.Code:
			writeError(w, errMerchantCodeNotKey)
		default:
			h(w, r, c)
		}
	})
}

func (s *Service) disputeWebhookRoutes(mux *http.ServeMux, region string) {
	mux.HandleFunc("GET /api/v1/dispute-webhooks", s.merchantHeader(region, s.handleListDisputeWebhooks))
	mux.HandleFunc("POST /api/v1/dispute-webhooks", s.merchantHeader(region, s.handleCreateDisputeWebhook))
	mux.HandleFunc("GET /api/v1/dispute-webhooks/{id}", s.merchantHeader(region, s.handleGetDisputeWebhook))
	mux.HandleFunc("PUT /api/v1/dispute-webhooks/{id}", s.merchantHeader(region, s.handleReplaceDisputeWebhook))
	mux.HandleFunc("DELETE /api/v1/dispute-webhooks/{id}", s.merchantHeader(region, s.handleDeleteDisputeWebhook))
}

func (h *hookRow) disputeView() wire.DisputeWebhook {
	return wire.DisputeWebhook{ID: h.ID, URL: h.URL, Header: h.maskedHeader()}
}

func disputeHookError(err error) error {
	switch {
	case errors.Is(err, errHookNotFound):
		return errNoSuchDisputeHook
	case errors.Is(err, errHookExists), errors.Is(err, errHookMax):
		return errHookBadRequest
	}
	return err
}

func (s *Service) handleListDisputeWebhooks(w http.ResponseWriter, r *http.Request, c caller) {
	hooks, err := listHooks(r.Context(), s.db, hookKindDispute, c.merchant.Code, false)
	if err != nil {
		writeError(w, err)
		return
	}
	out := make([]wire.DisputeWebhook, 0, len(hooks))
	for _, h := range hooks {
		out = append(out, h.disputeView())
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Service) handleGetDisputeWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errHookBadRequest)
		return
	}
	h, err := getHook(r.Context(), s.db, hookKindDispute, c.merchant.Code, false, id)
	if err != nil {
		writeError(w, disputeHookError(err))
		return
	}
	writeJSON(w, http.StatusOK, h.disputeView())
}

func (s *Service) disputeHookFromBody(r *http.Request, c caller, id string) (*hookRow, error) {
	b, err := decodeHookBody(r)
	if err != nil {
		return nil, bodyRefusal(err, errHookBadRequest)
	}
	if b.URL == nil {
		return nil, errHookBadRequest
	}
	normalised, err := s.hooks.checkWebhookURL(r.Context(), *b.URL, false)
	if err != nil {
		return nil, errHookBadRequest
	}
	if err := checkHeader(b.Header); err != nil {
		return nil, errHookBadRequest
	}
	return &hookRow{ID: id, Kind: hookKindDispute, MerchantCode: c.merchant.Code, URL: normalised, Header: b.Header}, nil
}

func (s *Service) handleCreateDisputeWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	h, err := s.disputeHookFromBody(r, c, uuid.NewString())
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.hooks.saveHook(r.Context(), h, wire.MaxDisputeWebhooks, false); err != nil {
		writeError(w, disputeHookError(err))
		return
	}
	writeJSON(w, http.StatusOK, h.disputeView())
}

// handleReplaceDisputeWebhook replaces the whole object: a body without a
// header leaves the webhook without one.
func (s *Service) handleReplaceDisputeWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errHookBadRequest)
		return
	}
	h, err := s.disputeHookFromBody(r, c, id)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.hooks.saveHook(r.Context(), h, wire.MaxDisputeWebhooks, true); err != nil {
		writeError(w, disputeHookError(err))
		return
	}
	writeJSON(w, http.StatusOK, h.disputeView())
}

func (s *Service) handleDeleteDisputeWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errHookBadRequest)
		return
	}
	if err := s.hooks.deleteHook(r.Context(), hookKindDispute, c.merchant.Code, false, id); err != nil {
		writeError(w, disputeHookError(err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
