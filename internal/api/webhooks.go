package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// checkWebhook validates what both kinds of webhook registration share.
func checkWebhook(v *ValidationError, rawURL string, h *WebhookHeader) {
	u, err := url.Parse(rawURL)
	switch {
	case strings.TrimSpace(rawURL) == "":
		v.Add("$.url", "must not be empty")
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		v.Add("$.url", "%q is not an absolute http(s) URL", secret.RedactUserinfo(rawURL))
	}
	if h == nil {
		return
	}
	switch {
	case h.Title == "":
		v.Add("$.header.title", "must not be empty when a header is given")
	case !isToken(h.Title):
		v.Add("$.header.title", "%q is not a valid HTTP header name", h.Title)
	case len(h.Title) > MaxHeaderTitle:
		v.Add("$.header.title", "must be at most %d characters, got %d", MaxHeaderTitle, len(h.Title))
	}
	// The value is a secret: problems with it never quote it.
	switch {
	case h.Value == "":
		v.Add("$.header.value", "must not be empty when a header is given")
	case utf8.RuneCountInString(h.Value) > MaxHeaderValue:
		v.Add("$.header.value", "must be at most %d characters", MaxHeaderValue)
	case strings.ContainsAny(h.Value, "\r\n\x00"):
		v.Add("$.header.value", "must not contain line breaks")
	}
}

// isToken reports whether s is an HTTP token (RFC 9110), the form of a
// header name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0:
		default:
			return false
		}
	}
	return true
}

// The service masks dispute-webhook header values, but payment webhooks may
// answer theirs in clear. Decoded webhooks are masked here, struct and
// Raw() alike, so that no printer can show the value.

func maskSecrets(v any) {
	switch w := v.(type) {
	case *Webhook:
		maskHook(w.Header, w.Raw(), w.KeepRaw)
	case *DisputeWebhook:
		maskHook(w.Header, w.Raw(), w.KeepRaw)
	}
}

func maskHook(h *WebhookHeader, raw json.RawMessage, keep func([]byte)) {
	if h != nil {
		h.Value = maskedValue(h.Value)
	}
	if b, changed := maskRaw(raw); changed {
		keep(b)
	}
}

// decodeList reads an answer that should be an array but that the service
// may also give as a single object or null (GET /api/v1/webhooks does).
func decodeList[T any](cl *call, body []byte) ([]T, error) {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0, bytes.Equal(trimmed, []byte("null")):
		return []T{}, nil
	case trimmed[0] == '{':
		many := make([]T, 1)
		if err := json.Unmarshal(trimmed, &many[0]); err != nil {
			return nil, fmt.Errorf("%s: could not read the answer: %w", cl.opName(), err)
		}
		return maskAll(many), nil
	}
	var many []T
	if err := json.Unmarshal(trimmed, &many); err != nil {
		return nil, fmt.Errorf("%s: could not read the answer: %w", cl.opName(), err)
	}
	if many == nil {
		many = []T{}
	}
	return maskAll(many), nil
}

func maskAll[T any](items []T) []T {
	for i := range items {
		maskSecrets(&items[i])
	}
	return items
}

const (
	webhooksPath        = "/api/v1/webhooks"
	disputeWebhooksPath = "/api/v1/dispute-webhooks"
)

// webhookCall builds a call to either webhook family, which both need the
// X-Merchant-Code header.
func (c *Client) webhookCall(method, base, id string, body any, policy retryPolicy) (*call, error) {
	path, op := base, base
	if id != "" {
		path += "/" + url.PathEscape(id)
		op += "/{id}"
	}
	cl, err := newJSONCall(method, path, op, body, policy)
	if err != nil {
		return nil, err
	}
	cl.header = c.merchantHeader()
	return cl, nil
}

// sendWebhook makes one call to either webhook family and decodes the one
// registration it answers, with its header value masked.
func sendWebhook[T any](ctx context.Context, c *Client, method, base, id string, body any, policy retryPolicy) (*T, error) {
	cl, err := c.webhookCall(method, base, id, body, policy)
	if err != nil {
		return nil, err
	}
	var w T
	if err := c.doJSON(ctx, cl, &w); err != nil {
		return nil, err
	}
	maskSecrets(&w)
	return &w, nil
}

// ListWebhooks lists the payment webhooks of the merchant, empty when none
// are registered.
func (c *Client) ListWebhooks(ctx context.Context) ([]Webhook, error) {
	cl, err := c.webhookCall(http.MethodGet, webhooksPath, "", nil, retrySafe)
	if err != nil {
		return nil, err
	}
	res, err := c.execute(ctx, cl)
	if err != nil {
		return nil, err
	}
	return decodeList[Webhook](cl, res.body)
}

// GetWebhook reads one payment webhook.
func (c *Client) GetWebhook(ctx context.Context, id string) (*Webhook, error) {
	if err := validID("webhook id", id); err != nil {
		return nil, err
	}
	return sendWebhook[Webhook](ctx, c, http.MethodGet, webhooksPath, id, nil, retrySafe)
}

// CreateWebhook registers a payment webhook. A repeat would be refused as
// a duplicate, so it is retried only when it surely was not received.
func (c *Client) CreateWebhook(ctx context.Context, req WebhookRequest) (*Webhook, error) {
	v := &ValidationError{}
	checkWebhook(v, req.URL, req.Header)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return sendWebhook[Webhook](ctx, c, http.MethodPost, webhooksPath, "", req, retryRefused)
}

// UpdateWebhook changes a payment webhook.
func (c *Client) UpdateWebhook(ctx context.Context, id string, req WebhookRequest) (*Webhook, error) {
	v := &ValidationError{}
	checkID(v, "webhook id", id)
	checkWebhook(v, req.URL, req.Header)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return sendWebhook[Webhook](ctx, c, http.MethodPut, webhooksPath, id, req, retrySafe)
}

// DeleteWebhook removes a payment webhook. A repeated delete would answer
// 404 for a delete that worked, so it is retried only when surely unsent.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	if err := validID("webhook id", id); err != nil {
		return err
	}
	cl, err := c.webhookCall(http.MethodDelete, webhooksPath, id, nil, retryRefused)
	if err != nil {
		return err
	}
	_, err = c.execute(ctx, cl)
	return err
}

// ListDisputeWebhooks lists the dispute webhooks of the merchant. Dispute
// webhooks are live only: the key must be a live one.
func (c *Client) ListDisputeWebhooks(ctx context.Context) ([]DisputeWebhook, error) {
	cl, err := c.webhookCall(http.MethodGet, disputeWebhooksPath, "", nil, retrySafe)
	if err != nil {
		return nil, err
	}
	res, err := c.execute(ctx, cl)
	if err != nil {
		return nil, err
	}
	return decodeList[DisputeWebhook](cl, res.body)
}

// GetDisputeWebhook reads one dispute webhook.
func (c *Client) GetDisputeWebhook(ctx context.Context, id string) (*DisputeWebhook, error) {
	if err := validID("dispute webhook id", id); err != nil {
		return nil, err
	}
	return sendWebhook[DisputeWebhook](ctx, c, http.MethodGet, disputeWebhooksPath, id, nil, retrySafe)
}

// CreateDisputeWebhook registers a dispute webhook; the answer masks the
// header value.
func (c *Client) CreateDisputeWebhook(ctx context.Context, req DisputeWebhookRequest) (*DisputeWebhook, error) {
	v := &ValidationError{}
	checkWebhook(v, req.URL, req.Header)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return sendWebhook[DisputeWebhook](ctx, c, http.MethodPost, disputeWebhooksPath, "", req, retryRefused)
}

// ReplaceDisputeWebhook replaces a dispute webhook as a whole: a request
// without a header removes the registered one.
func (c *Client) ReplaceDisputeWebhook(ctx context.Context, id string, req DisputeWebhookRequest) (*DisputeWebhook, error) {
	v := &ValidationError{}
	checkID(v, "dispute webhook id", id)
	checkWebhook(v, req.URL, req.Header)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return sendWebhook[DisputeWebhook](ctx, c, http.MethodPut, disputeWebhooksPath, id, req, retrySafe)
}

// DeleteDisputeWebhook removes a dispute webhook.
func (c *Client) DeleteDisputeWebhook(ctx context.Context, id string) error {
	if err := validID("dispute webhook id", id); err != nil {
		return err
	}
	cl, err := c.webhookCall(http.MethodDelete, disputeWebhooksPath, id, nil, retryRefused)
	if err != nil {
		return err
	}
	_, err = c.execute(ctx, cl)
	return err
}
