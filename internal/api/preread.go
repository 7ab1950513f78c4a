package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
)

// PreReadError is the failure of the read of a payment that a capture,
// refund or close makes before sending the move: no answer, or a 5xx.
// Nothing was moved, so it is never an unknown outcome: it exits 9, and
// its message names the real path.
type PreReadError struct {
	// Verb is what was not done: "captured", "refunded", "closed".
	Verb      string
	PaymentID string
	Err       error
}

func (e *PreReadError) Error() string {
	// A network error names the real path already (NetworkError.Op).
	return fmt.Sprintf("could not read the payment; nothing was %s: %s", e.Verb, e.Err)
}

func (e *PreReadError) Unwrap() error { return e.Err }

// ExitCode is 9: the service could not be read, and nothing was sent
// that could have moved money.
func (e *PreReadError) ExitCode() int { return exitServer }

func (e *PreReadError) Hint() string {
	var ne *NetworkError
	if errors.As(e.Err, &ne) {
		return "no move was sent; check the network and the base URL (`bnpl doctor`), then run the command again"
	}
	return "the service failed to answer the read; no move was sent; run the command again later"
}

// ErrorDetails are the facts `-o json` writes with the error.
func (e *PreReadError) ErrorDetails() map[string]any {
	d := map[string]any{"outcome": "not_sent", "method": http.MethodGet, "path": paymentPath(e.PaymentID)}
	if s := StatusOf(e.Err); s != 0 {
		d["status"] = s
	}
	return d
}

// ReadBeforeMove reads the payment a move is about to act on, so that the
// move can be checked locally first; verb is "captured", "refunded" or
// "closed". The read is sent even in a dry run: it changes nothing. A read
// that got no answer or a 5xx is a *PreReadError; other errors (no such
// payment, a wrong key) are returned as they are.
func (c *Client) ReadBeforeMove(ctx context.Context, id, verb string) (*Payment, error) {
	if err := validID("payment id", id); err != nil {
		return nil, err
	}
	cl := &call{method: http.MethodGet, path: paymentPath(id), op: "GET /api/v2/payments/{id}", policy: retrySafe, sendInDryRun: true}
	var p Payment
	err := c.doJSON(ctx, cl, &p)
	if err == nil {
		return &p, nil
	}
	var ne *NetworkError
	if ctx.Err() == nil && (errors.As(err, &ne) || StatusOf(err) >= 500) {
		return nil, &PreReadError{Verb: verb, PaymentID: id, Err: err}
	}
	return nil, err
}

// NotServiceError is an answer that is not the service's: HTML or other
// non-JSON where JSON was expected, typically from a base URL that points
// at a web site or a proxy. Exit 1.
type NotServiceError struct {
	URL         string
	Status      int
	ContentType string
}

func (e *NotServiceError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "no content type"
	}
	return fmt.Sprintf("the answer at %s is not the service's (HTTP %d, %s); check the base URL with `bnpl doctor`", e.URL, e.Status, ct)
}

func (e *NotServiceError) ExitCode() int { return exitUnexpected }

// ErrorDetails are the facts `-o json` writes with the error.
func (e *NotServiceError) ErrorDetails() map[string]any {
	return map[string]any{"url": e.URL, "status": e.Status, "content_type": e.ContentType}
}

// notService recognises an answer that cannot be the service's: a body
// that is not JSON at all where a JSON object was expected (any 2xx), or
// a page of HTML in place of an error (a 4xx). 5xx answers stay server
// errors: a proxy in front of the service answers those in HTML too.
func (c *Client) notService(cl *call, status int, header http.Header, body []byte) *NotServiceError {
	if status >= 500 {
		return nil
	}
	trimmed := bytes.TrimSpace(body)
	ct := header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	html := mt == "text/html" || (len(trimmed) > 0 && trimmed[0] == '<')
	jsonLike := len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
	switch {
	case status >= 200 && status < 300:
		if len(trimmed) == 0 || jsonLike {
			return nil
		}
	case status < 400 || !html:
		return nil
	}
	return &NotServiceError{URL: c.shownURL(cl), Status: status, ContentType: mt}
}

// shownURL is the request's address without query or userinfo.
func (c *Client) shownURL(cl *call) string {
	u, err := url.Parse(c.baseURL + cl.path)
	if err != nil {
		return cl.path
	}
	u.User = nil
	return c.maskerFor(cl).String(u.String())
}
