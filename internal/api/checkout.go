package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// CreateCheckout creates a session and its payment. body is a
// CheckoutRequest (or a pointer to one) or the JSON document itself
// (json.RawMessage or []byte), sent as is.
//
// It is not retried once the request may have reached the service, since
// a second one would create a second payment: only a connection that was
// never made, a 429 and a locked payment are retried. A pre-scoring
// rejection is a success with Status "rejected".
func (c *Client) CreateCheckout(ctx context.Context, body any) (*CheckoutSession, error) {
	cl := &call{method: http.MethodPost, path: "/api/v2/checkout", op: "POST /api/v2/checkout", policy: retryRefused}
	switch b := body.(type) {
	case nil:
	case json.RawMessage:
		cl.body = []byte(b)
	case []byte:
		cl.body = b
	default:
		enc, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s: encoding the request: %w", cl.opName(), err)
		}
		cl.body = enc
	}
	trimmed := bytes.TrimSpace(cl.body)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		v := &ValidationError{}
		v.Add("$", "the checkout request must be a JSON object")
		return nil, v
	}
	var s CheckoutSession
	if err := c.doJSON(ctx, cl, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// GetCheckout reads a session.
func (c *Client) GetCheckout(ctx context.Context, id string) (*CheckoutSession, error) {
	if err := validID("session id", id); err != nil {
		return nil, err
	}
	cl := &call{
		method: http.MethodGet,
		path:   "/api/v2/checkout/" + url.PathEscape(id),
		op:     "GET /api/v2/checkout/{id}",
		policy: retrySafe,
	}
	var s CheckoutSession
	if err := c.doJSON(ctx, cl, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// GetCheckoutQR fetches the PNG image of the QR code of the session's
// checkout URL.
func (c *Client) GetCheckoutQR(ctx context.Context, id string) ([]byte, error) {
	if err := validID("session id", id); err != nil {
		return nil, err
	}
	cl := &call{
		method: http.MethodGet,
		path:   "/api/v2/checkout/" + url.PathEscape(id) + "/hpp_link_qr",
		op:     "GET /api/v2/checkout/{id}/hpp_link_qr",
		// Errors still come as JSON, so both are acceptable.
		header: http.Header{"Accept": {"image/png, application/json"}},
		policy: retrySafe,
	}
	res, err := c.execute(ctx, cl)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(res.body, pngSignature) {
		return nil, fmt.Errorf("%s: expected a PNG image, got %d bytes of %q", cl.opName(), len(res.body), res.header.Get("Content-Type"))
	}
	return res.body, nil
}
