package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// paymentHookView is a payment webhook as the API answers it.
type paymentHookView struct {
	ID     string              `json:"id"`
	URL    string              `json:"url"`
	IsTest bool                `json:"is_test"`
	Header *wire.WebhookHeader `json:"header"`
}

func paymentHookOf(h *outbox.HookRow) paymentHookView {
	return paymentHookView{ID: h.ID, URL: h.URL, IsTest: h.IsTest, Header: h.MaskedHeader()}
}

// hookBody is a create or replace body of either family; "header": null
// and an absent header both mean none.
type hookBody struct {
	URL    *string             `json:"url"`
	Header *wire.WebhookHeader `json:"header"`
}

func decodeHookBody(r *http.Request) (*hookBody, error) {
	body, err := edge.ReadSizedBody(r)
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
	errJSONDecodeEOF = edge.BadData("json decode: EOF")
	errNoSuchWebhook = &edge.Refusal{Status: 404, ErrorType: "not_found", Message: "no such webhook"}
	msgHookURL       = "invalid webhook url"
	msgHookHeader    = "invalid webhook header"
)

// paymentHookError words a refusal of a payment webhook write as the
// service does; op is "create payment webhook" or "update payment webhook".
func paymentHookError(op string, err error) error {
	switch {
	case errors.Is(err, outbox.ErrHookExists):
		return edge.BadData(op + ": " + outbox.ErrHookExists.Error())
	case errors.Is(err, outbox.ErrHookMax):
		return edge.BadData(op + ": " + outbox.ErrHookMax.Error())
	case errors.Is(err, outbox.ErrHookNotFound):
		return errNoSuchWebhook
	}
	return err
}

func (s *Service) handleListWebhooks(w http.ResponseWriter, r *http.Request, c caller) {
	hooks, err := outbox.ListHooks(r.Context(), s.DB, outbox.HookKindPayment, c.merchant.Code, c.isTest)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	out := make([]paymentHookView, 0, len(hooks))
	for _, h := range hooks {
		out = append(out, paymentHookOf(h))
	}
	edge.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) handleGetWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, errJSONDecodeEOF)
		return
	}
	h, err := outbox.GetHook(r.Context(), s.DB, outbox.HookKindPayment, c.merchant.Code, c.isTest, id)
	if err != nil {
		edge.WriteError(w, paymentHookError("get payment webhook", err))
		return
	}
	edge.WriteJSON(w, http.StatusOK, paymentHookOf(h))
}

// paymentHookFromBody checks a payment webhook body; is_test follows the
// key whatever the body says.
func (s *Service) paymentHookFromBody(r *http.Request, c caller, id, op string) (*outbox.HookRow, error) {
	b, err := decodeHookBody(r)
	if err != nil {
		return nil, edge.BodyRefusal(err, errJSONDecodeEOF)
	}
	if b.URL == nil {
		return nil, edge.BadData(op + ": " + msgHookURL)
	}
	normalised, err := s.Outbox.CheckWebhookURL(r.Context(), *b.URL, true)
	if err != nil {
		return nil, edge.BadData(op + ": " + msgHookURL)
	}
	if err := outbox.CheckHeader(b.Header); err != nil {
		return nil, edge.BadData(op + ": " + msgHookHeader)
	}
	return &outbox.HookRow{ID: id, Kind: outbox.HookKindPayment, MerchantCode: c.merchant.Code, IsTest: c.isTest, URL: normalised, Header: b.Header}, nil
}

func (s *Service) handleCreateWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	const op = "create payment webhook"
	h, err := s.paymentHookFromBody(r, c, s.NewID(r.Context()), op)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	if err := s.Outbox.SaveHook(r.Context(), h, outbox.MaxPaymentWebhooks, false); err != nil {
		edge.WriteError(w, paymentHookError(op, err))
		return
	}
	edge.WriteJSON(w, http.StatusOK, paymentHookOf(h))
}

func (s *Service) handleReplaceWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	const op = "update payment webhook"
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, errJSONDecodeEOF)
		return
	}
	h, err := s.paymentHookFromBody(r, c, id, op)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	if err := s.Outbox.SaveHook(r.Context(), h, outbox.MaxPaymentWebhooks, true); err != nil {
		edge.WriteError(w, paymentHookError(op, err))
		return
	}
	edge.WriteJSON(w, http.StatusOK, paymentHookOf(h))
}

func (s *Service) handleDeleteWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, errJSONDecodeEOF)
		return
	}
	if err := s.Outbox.DeleteHook(r.Context(), outbox.HookKindPayment, c.merchant.Code, c.isTest, id); err != nil {
		edge.WriteError(w, paymentHookError("delete payment webhook", err))
		return
	}
	edge.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
