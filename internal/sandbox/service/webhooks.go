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

// paymentHooks are payment webhooks (/api/v1/webhooks): a key's mode
// scopes them, at most outbox.MaxPaymentWebhooks per merchant and mode.
var paymentHooks = &hookResource{
	kind: outbox.HookKindPayment, noun: "payment webhook", scoped: true, max: outbox.MaxPaymentWebhooks, badID: errJSONDecodeEOF,
	fromBody: (*Service).paymentHookFromBody,
	refuse:   paymentHookError,
	view:     func(h *outbox.HookRow) any { return paymentHookOf(h) },
}

func (s *Service) webhookRoutes(mux *http.ServeMux, region string) {
	s.hookRoutes(mux, "/api/v1/webhooks", paymentHooks, func(h hookHandler) http.HandlerFunc {
		return s.authed(region, authPaymentHooks, h)
	})
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
