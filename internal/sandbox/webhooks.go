package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/google/uuid"
)

// paymentHookView is a payment webhook as the API answers it.
type paymentHookView struct {
	ID     string              `json:"id"`
	URL    string              `json:"url"`
	IsTest bool                `json:"is_test"`
	Header *wire.WebhookHeader `json:"header"`
}

func (h *hookRow) paymentView() paymentHookView {
	return paymentHookView{ID: h.ID, URL: h.URL, IsTest: h.IsTest, Header: h.maskedHeader()}
}

// hookBody is a create or replace body of either family; "header": null
// and an absent header both mean none.
type hookBody struct {
	URL    *string             `json:"url"`
	Header *wire.WebhookHeader `json:"header"`
}

func decodeHookBody(r *http.Request) (*hookBody, error) {
	body, err := readSizedBody(r)
	if err != nil {
		return nil, err
	}
	var b hookBody
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&b); err != nil {
		return nil, err
	}
	return &b, nil
}

func (s *Service) webhookRoutes(mux *http.ServeMux, region string) {
	mux.HandleFunc("GET /api/v1/webhooks", s.authed(region, authPaymentHooks, s.handleListWebhooks))
	mux.HandleFunc("POST /api/v1/webhooks", s.authed(region, authPaymentHooks, s.handleCreateWebhook))
	mux.HandleFunc("GET /api/v1/webhooks/{id}", s.authed(region, authPaymentHooks, s.handleGetWebhook))
	mux.HandleFunc("PUT /api/v1/webhooks/{id}", s.authed(region, authPaymentHooks, s.handleReplaceWebhook))
	mux.HandleFunc("DELETE /api/v1/webhooks/{id}", s.authed(region, authPaymentHooks, s.handleDeleteWebhook))
}

var (
	errJSONDecodeEOF = badData("json decode: EOF")
	errNoSuchWebhook = &apiError{status: 404, errorType: "not_found", message: "no such webhook"}
	msgHookURL       = "invalid webhook url"
	msgHookHeader    = "invalid webhook header"
)

// paymentHookError words a refusal of a payment webhook write as the
// service does; op is "create payment webhook" or "update payment webhook".
func paymentHookError(op string, err error) error {
	switch {
	case errors.Is(err, errHookExists):
		return badData(op + ": " + errHookExists.Error())
	case errors.Is(err, errHookMax):
		return badData(op + ": " + errHookMax.Error())
	case errors.Is(err, errHookNotFound):
		return errNoSuchWebhook
	}
	return err
}

func (s *Service) handleListWebhooks(w http.ResponseWriter, r *http.Request, c caller) {
	hooks, err := listHooks(r.Context(), s.db, hookKindPayment, c.merchant.Code, c.isTest)
	if err != nil {
		writeError(w, err)
		return
	}
	out := make([]paymentHookView, 0, len(hooks))
	for _, h := range hooks {
		out = append(out, h.paymentView())
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Service) handleGetWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errJSONDecodeEOF)
		return
	}
	h, err := getHook(r.Context(), s.db, hookKindPayment, c.merchant.Code, c.isTest, id)
	if err != nil {
		writeError(w, paymentHookError("get payment webhook", err))
		return
	}
	writeJSON(w, http.StatusOK, h.paymentView())
}

// paymentHookFromBody checks a payment webhook body; is_test follows the
// key whatever the body says.
func (s *Service) paymentHookFromBody(r *http.Request, c caller, id, op string) (*hookRow, error) {
	b, err := decodeHookBody(r)
	if err != nil {
		return nil, bodyRefusal(err, errJSONDecodeEOF)
	}
	if b.URL == nil {
		return nil, badData(op + ": " + msgHookURL)
	}
	normalised, err := s.hooks.checkWebhookURL(r.Context(), *b.URL, true)
	if err != nil {
		return nil, badData(op + ": " + msgHookURL)
	}
	if err := checkHeader(b.Header); err != nil {
		return nil, badData(op + ": " + msgHookHeader)
	}
	return &hookRow{ID: id, Kind: hookKindPayment, MerchantCode: c.merchant.Code, IsTest: c.isTest, URL: normalised, Header: b.Header}, nil
}

func (s *Service) handleCreateWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	const op = "create payment webhook"
	h, err := s.paymentHookFromBody(r, c, uuid.NewString(), op)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.hooks.saveHook(r.Context(), h, maxPaymentWebhooks, false); err != nil {
		writeError(w, paymentHookError(op, err))
		return
	}
	writeJSON(w, http.StatusOK, h.paymentView())
}

func (s *Service) handleReplaceWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	const op = "update payment webhook"
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errJSONDecodeEOF)
		return
	}
	h, err := s.paymentHookFromBody(r, c, id, op)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.hooks.saveHook(r.Context(), h, maxPaymentWebhooks, true); err != nil {
		writeError(w, paymentHookError(op, err))
		return
	}
	writeJSON(w, http.StatusOK, h.paymentView())
}

func (s *Service) handleDeleteWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errJSONDecodeEOF)
		return
	}
	if err := s.hooks.deleteHook(r.Context(), hookKindPayment, c.merchant.Code, c.isTest, id); err != nil {
		writeError(w, paymentHookError("delete payment webhook", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
