// Package api is the typed client of the installment-payment service: the
// wire models, one method per endpoint, the errors the service answers, the
// retry policy, and the reconciliation that makes money moves safe to retry.
//
// A Client is safe for concurrent use; bulk runs share one, so that they
// share its connections and its rate-limit pause.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-resty/resty/v2"
	"github.com/google/uuid"

	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Options configure a Client.
type Options struct {
	// BaseURL is the regional base address, https://api.tabby.ai or a
	// sandbox such as http://127.0.0.1:8700.
	BaseURL   string
	SecretKey string
	// MerchantCode is sent as X-Merchant-Code on payment-webhook and
	// dispute-webhook calls.
	MerchantCode string
	// Region of the key ("ae", "sa"), named in the wrong-region hint; may be
	// empty.
	Region string
	// Version goes into the User-Agent, bnpl/<version>.
	Version string
	// Timeout bounds each attempt; 0 means 30s.
	Timeout time.Duration
	// Retries is how many times a safe-to-retry failure is retried; 0
	// means never, a negative value means the default of 3.
	Retries int
	// Transport carries the requests; nil is a keep-alive transport of the
	// client's own. Tests and the in-process sandbox swap it.
	Transport http.RoundTripper
	// Secrets are more values to mask wherever the client turns an answer
	// into text, beside the key and the signing header values a request
	// carries (which it knows by itself): another key of the profile, say.
	Secrets []string
	// Debug, when set, receives every exchange with the key and signing
	// header values masked.
	Debug io.Writer
	// DryRun, when set, receives the request that would be sent instead of
	// sending it; the call returns ErrDryRun.
	DryRun io.Writer
	// Sleep waits between attempts; nil waits on a timer and returns early
	// with ctx's error when ctx ends. Tests inject one that does not wait.
	Sleep func(ctx context.Context, d time.Duration) error
	// SandboxKey says that SecretKey is one of the sandbox's built-in keys,
	// which are public: it may then go over plain http to a host that is
	// not loopback once that host answers as a bnpl sandbox (see
	// sandboxproof.go). Any other key is refused there, and so is a key
	// marked so that does not have a sandbox key's form.
	SandboxKey bool
}

const (
	defaultTimeout = 30 * time.Second
	defaultRetries = 3
)

// Client talks to one base address with one key.
type Client struct {
	rc           *resty.Client
	baseURL      string // without a trailing slash
	header       http.Header
	key          string
	masker       *secret.Masker // the key and Options.Secrets
	merchantCode string
	region       string
	retries      int
	debug        io.Writer
	dryRun       io.Writer
	sleep        func(ctx context.Context, d time.Duration) error
	now          func() time.Time

	writeMu sync.Mutex // keeps concurrent debug blocks whole
	gate    rateGate
	// proof, when set, must pass before the first request: a sandbox key
	// over plain http to a host that is not loopback.
	proof *sandboxProof
}

// New builds a client. It refuses to send a key over plain http:// to a
// host that is not loopback, since anyone on the path could read it; only
// a sandbox's public key may go there, to a host that proves to be a bnpl
// sandbox before the first request (Options.SandboxKey).
func New(o Options) (*Client, error) {
	base, err := url.Parse(strings.TrimSpace(o.BaseURL))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, &OptionsError{
			Msg:  fmt.Sprintf("invalid base URL %q", secret.RedactURL(o.BaseURL)),
			hint: "use an absolute address such as https://api.tabby.ai or http://127.0.0.1:8700",
		}
	}
	if base.RawQuery != "" || base.Fragment != "" || base.User != nil {
		return nil, &OptionsError{
			Msg:  fmt.Sprintf("invalid base URL %q: it may not carry credentials, a query or a fragment", secret.RedactURL(o.BaseURL)),
			hint: "use an address such as https://api.tabby.ai",
		}
	}
	plainRemote := o.SecretKey != "" && base.Scheme == "http" && !netguard.LoopbackCandidate(base.Hostname())
	if plainRemote && !(o.SandboxKey && sandboxKeyShape(o.SecretKey)) {
		return nil, &OptionsError{
			Msg:  fmt.Sprintf("refusing to send the secret key over plain http to %s", base.Host),
			hint: "use an https:// base URL; plain http is allowed only to 127.0.0.0/8, ::1 and localhost where it resolves to them (and, for the sandbox's built-in keys, to a bnpl sandbox by any name)",
		}
	}

	timeout := o.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	retries := o.Retries
	if retries < 0 {
		retries = defaultRetries
	}
	transport := clientTransport(o, base, plainRemote)
	version := o.Version
	if version == "" {
		version = "dev"
	}

	header := http.Header{}
	header.Set("User-Agent", "bnpl/"+version)
	header.Set("Accept", "application/json")
	if o.SecretKey != "" {
		header.Set("Authorization", "Bearer "+o.SecretKey)
	}

	// Retries are ours (retry.go): resty's own would sleep on its own timer,
	// retry POSTs blindly and know nothing of reconciliation.
	hc := &http.Client{Transport: transport, Timeout: timeout, CheckRedirect: checkRedirect}
	rc := resty.NewWithClient(hc).
		SetLogger(quietLogger{}).
		SetRetryCount(0).
		SetRetryResetReaders(true)

	sleep := o.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	var proof *sandboxProof
	if plainRemote {
		proof = newSandboxProof(base, transport)
	}
	return &Client{
		proof:        proof,
		rc:           rc,
		baseURL:      strings.TrimRight(base.String(), "/"),
		header:       header,
		key:          o.SecretKey,
		masker:       secret.NewMasker(append([]string{o.SecretKey}, o.Secrets...)...),
		merchantCode: o.MerchantCode,
		region:       o.Region,
		retries:      retries,
		debug:        o.Debug,
		dryRun:       o.DryRun,
		sleep:        sleep,
		now:          time.Now,
	}, nil
}

// BaseURL is the base address the client sends to.
func (c *Client) BaseURL() string { return c.baseURL }

// clientTransport is the transport of a client of o to base: a key
// over plain http to localhost goes only where the name resolves to this
// machine, dialled at exactly that address.
func clientTransport(o Options, base *url.URL, plainRemote bool) http.RoundTripper {
	transport := o.Transport
	if transport == nil {
		transport = newTransport()
	}
	if o.SecretKey != "" && base.Scheme == "http" && !plainRemote && !netguard.LoopbackLiteral(base.Hostname()) {
		transport = loopbackOnly(transport)
	}
	return transport
}

// loopbackOnly is t dialling only this machine (netguard.DialLoopback).
// A transport that is not an *http.Transport does not dial (the embedded
// sandbox's) and is kept.
func loopbackOnly(t http.RoundTripper) http.RoundTripper {
	ht, ok := t.(*http.Transport)
	if !ok {
		return t
	}
	ht = ht.Clone()
	ht.DialContext = netguard.DialLoopback(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second})
	ht.DialTLSContext = nil
	return ht
}

// checkRedirect stops at a redirect that would carry the key over plain
// http to a remote host (Go keeps the Authorization header when only the
// scheme changes); the 3xx is then handed back as an APIError.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return http.ErrUseLastResponse
	}
	first := via[0].URL
	same := req.URL.Scheme == first.Scheme && strings.EqualFold(req.URL.Host, first.Host)
	if req.URL.Scheme != "https" && !netguard.LoopbackLiteral(req.URL.Hostname()) && !same {
		return http.ErrUseLastResponse
	}
	return nil
}

// newTransport keeps enough idle connections for a bulk run's workers,
// which all talk to the one host.
func newTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}

// Sleep waits d, or until ctx is done (its error): the wait between the
// client's retries, and between the reads of a command that polls.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// quietLogger keeps resty from writing to stderr; what a person should see
// goes through Options.Debug.
type quietLogger struct{}

func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Warnf(string, ...any)  {}
func (quietLogger) Debugf(string, ...any) {}

// call is one logical request, which may be sent several times.
type call struct {
	method string
	path   string // escaped, beginning with "/"
	// op is the request's route, ids left as placeholders ("POST
	// /api/v2/payments/{id}/captures"), for grouping and classification
	// (the "route" of an error's details); messages name the real path
	// (opName).
	op     string
	query  url.Values
	header http.Header // beyond the client's own
	body   []byte      // JSON; nil for none
	file   *fileBody
	policy retryPolicy
	// sendInDryRun: a harmless read that a dry run sends all the same
	// (the read of a payment before a move).
	sendInDryRun bool

	masker *secret.Masker // set by Client.maskerFor
}

type fileBody struct {
	field, name string
	r           io.ReadSeeker
	size        int64
}

// opName names the request in errors with its real path, ids included
// ("POST /api/v2/payments/3fa8…/captures"), never the template of op: a
// person must see which payment a failure was about.
func (cl *call) opName() string {
	return cl.method + " " + cl.path
}

func (c *Client) url(cl *call) string {
	u := c.baseURL + cl.path
	if len(cl.query) > 0 {
		u += "?" + cl.query.Encode()
	}
	return u
}

// requestHeader is every header a request carries; the one place where the
// key is put on a request.
func (c *Client) requestHeader(cl *call) http.Header {
	h := c.header.Clone()
	for k, vs := range cl.header {
		h[k] = append([]string(nil), vs...)
	}
	if cl.body != nil && h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	return h
}

// merchantHeader is the X-Merchant-Code header of webhook calls.
func (c *Client) merchantHeader() http.Header {
	h := http.Header{}
	if c.merchantCode != "" {
		h.Set("X-Merchant-Code", c.merchantCode)
	}
	return h
}

// newJSONCall marshals body (nil for none) into a call.
func newJSONCall(method, path, op string, body any, policy retryPolicy) (*call, error) {
	cl := &call{method: method, path: path, op: method + " " + op, policy: policy}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s: encoding the request: %w", cl.opName(), err)
		}
		cl.body = b
	}
	return cl, nil
}

// attempt is what one sending of a call produced.
type attempt struct {
	status int
	header http.Header
	body   []byte
	err    error // the transport's: no answer
	local  error // ours: the request could not be made; never retried
}

func (c *Client) send(ctx context.Context, cl *call, n int) attempt {
	u := c.url(cl)
	h := c.requestHeader(cl)
	req := c.rc.R().SetContext(ctx)
	req.Header = h.Clone()
	if cl.body != nil {
		req.SetBody(cl.body)
	}
	if cl.file != nil {
		// Every attempt must send the whole file again.
		if _, err := cl.file.r.Seek(0, io.SeekStart); err != nil {
			return attempt{local: fmt.Errorf("%s: rewinding %s: %w", cl.opName(), cl.file.name, err)}
		}
		req.SetFileReader(cl.file.field, cl.file.name, cl.file.r)
	}
	start := time.Now()
	resp, err := req.Execute(cl.method, u)
	took := time.Since(start)
	var a attempt
	if err != nil {
		a.err = err
	} else {
		a.status = resp.StatusCode()
		a.header = resp.Header()
		a.body = resp.Body()
	}
	if c.debug != nil {
		sentHeader := h
		if resp != nil && resp.Request != nil && resp.Request.RawRequest != nil {
			sentHeader = resp.Request.RawRequest.Header
		}
		c.logExchange(cl, u, sentHeader, n, a, took)
	}
	return a
}

// ---- what a person sees: dry run and debug ----

func (c *Client) writeDryRun(cl *call) error {
	var b strings.Builder
	b.WriteString(cl.method + " " + c.url(cl) + "\n")
	c.writeHeader(&b, "", c.requestHeader(cl), true)
	if body := c.requestBodyText(cl); body != "" {
		b.WriteString("\n" + body + "\n")
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := io.WriteString(c.dryRun, c.maskerFor(cl).Text(b.String()))
	return err
}

func (c *Client) logExchange(cl *call, u string, reqHeader http.Header, n int, a attempt, took time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s", cl.method, u)
	if n > 1 {
		fmt.Fprintf(&b, " (attempt %d)", n)
	}
	b.WriteString("\n")
	c.writeHeader(&b, "> ", reqHeader, true)
	if body := c.requestBodyText(cl); body != "" {
		b.WriteString(">\n" + prefixLines("> ", body))
	}
	if a.err != nil {
		cause := a.err
		var ue *url.Error
		if errors.As(cause, &ue) {
			cause = ue.Err // the method and URL are on the line above
		}
		fmt.Fprintf(&b, "< no answer after %s: %v\n", took.Round(time.Millisecond), cause)
	} else {
		fmt.Fprintf(&b, "< %d %s (%s)\n", a.status, http.StatusText(a.status), took.Round(time.Millisecond))
		c.writeHeader(&b, "< ", a.header, false)
		if body := bodyText(a.header.Get("Content-Type"), a.body); body != "" {
			b.WriteString("<\n" + prefixLines("< ", body))
		}
	}
	b.WriteString("\n")
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	// Debug output is best effort: a failing stderr must not fail the call.
	_, _ = io.WriteString(c.debug, c.maskerFor(cl).Text(b.String()))
}

// shownRequestHeaders are the request headers a log may show as they are:
// the ones bnpl sets itself and that carry nothing secret. Any other header,
// such as one a person added with `bnpl api -H`, may hold a token, so its
// value is masked.
var shownRequestHeaders = map[string]bool{
	"Accept": true, "Content-Type": true, "Content-Length": true,
	"User-Agent": true, "X-Merchant-Code": true, "Accept-Encoding": true,
}

func (c *Client) writeHeader(b *strings.Builder, prefix string, h http.Header, request bool) {
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			switch {
			case strings.EqualFold(k, "Authorization"):
				v = secret.MaskAuthorization(v)
			case strings.EqualFold(k, "Cookie"), strings.EqualFold(k, "Set-Cookie"):
				v = secret.MaskValue(v)
			case request && !shownRequestHeaders[http.CanonicalHeaderKey(k)]:
				v = secret.MaskValue(v)
			}
			b.WriteString(prefix + k + ": " + v + "\n")
		}
	}
}

func (c *Client) requestBodyText(cl *call) string {
	if cl.file != nil {
		return fmt.Sprintf("[multipart/form-data: %s=%q, %d bytes]", cl.file.field, cl.file.name, cl.file.size)
	}
	if cl.body == nil {
		return ""
	}
	return bodyText("application/json", cl.body)
}

// maskerFor is the masker of everything a call turns into text: the
// error of a refusal, a network failure, the debug log. It knows the
// client's secrets and the call's own: the signing header values in its
// body ("header": {"value": …}) and the values of request headers that are
// not bnpl's own (a token given with `bnpl api -H`). It is the one place
// where an answer's words meet the secrets they might echo.
func (c *Client) maskerFor(cl *call) *secret.Masker {
	// A call belongs to one goroutine at a time; no lock is needed.
	if cl.masker != nil {
		return cl.masker
	}
	var extra []string
	for k, vs := range cl.header {
		if !shownRequestHeaders[http.CanonicalHeaderKey(k)] {
			extra = append(extra, vs...)
		}
	}
	if cl.body != nil {
		extra = append(extra, headerValues(cl.body)...)
	}
	if len(extra) == 0 {
		cl.masker = c.masker // immutable: shared
	} else {
		cl.masker = c.masker.With(extra...)
	}
	return cl.masker
}

// maskAnswer is a successful answer's body as every caller sees it: the
// typed decoders, the raw bytes `-o json` and `bnpl api` print, the bulk
// report. A body that echoes a secret of the call (the key, another of the
// profile, a signing header value it sends, a header given with `bnpl api
// -H`) or anything shaped like a key, in any JSON spelling (\u escapes
// included), has it masked, a JSON document string by string; any other
// body is returned as it came, at the cost of a few bytes.Contains
// (BenchmarkMaskAnswer).
func (c *Client) maskAnswer(cl *call, body []byte) []byte {
	m := c.maskerFor(cl)
	if !m.MayHold(body) {
		return body
	}
	return m.Bytes(body)
}

// headerValues are the signing header values a JSON body carries.
func headerValues(body []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, child := range t {
				if h, ok := child.(map[string]any); ok && k == "header" {
					if s, ok := h["value"].(string); ok {
						out = append(out, s)
					}
				}
				walk(child)
			}
		case []any:
			for _, child := range t {
				walk(child)
			}
		}
	}
	walk(doc)
	return out
}

func prefixLines(prefix, s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(prefix + line + "\n")
	}
	return b.String()
}

// bodyText renders a body for a person: JSON indented with signing header
// values masked, text as is, anything else as its size.
func bodyText(contentType string, body []byte) string {
	if len(body) == 0 {
		return ""
	}
	if json.Valid(body) {
		return string(maskJSON(body))
	}
	if utf8.Valid(body) && bytes.IndexByte(body, 0) < 0 {
		const max = 64 << 10
		if len(body) > max {
			return string(body[:max]) + fmt.Sprintf("\n[… %d more bytes]", len(body)-max)
		}
		return string(body)
	}
	if contentType == "" {
		contentType = http.DetectContentType(body)
	}
	return fmt.Sprintf("[%d bytes of %s]", len(body), contentType)
}

// maskJSON indents a JSON document and masks every "header": {"value": …}
// in it: the signing header values of webhooks, which the service treats
// as secrets. Key order is kept unless something had to be masked.
func maskJSON(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err == nil && maskHeaderValues(doc) {
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if enc.Encode(doc) == nil {
			return bytes.TrimRight(out.Bytes(), "\n")
		}
	}
	var out bytes.Buffer
	if json.Indent(&out, body, "", "  ") != nil {
		return body
	}
	return out.Bytes()
}

// maskedValue masks v unless the service already did: a masked value is
// "****" and at most four more characters, and masking it again would lose
// the four that help a person recognise it.
func maskedValue(v string) string {
	if v == "" || (strings.HasPrefix(v, "****") && utf8.RuneCountInString(v) <= 8) {
		return v
	}
	return secret.MaskValue(v)
}

func maskHeaderValues(v any) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if h, ok := child.(map[string]any); ok && k == "header" {
				if s, ok := h["value"].(string); ok && maskedValue(s) != s {
					h["value"] = maskedValue(s)
					changed = true
				}
			}
			if maskHeaderValues(child) {
				changed = true
			}
		}
	case []any:
		for _, child := range t {
			if maskHeaderValues(child) {
				changed = true
			}
		}
	}
	return changed
}

// maskRaw returns b with every signing header value masked, compact, and
// whether anything had to be masked.
func maskRaw(b []byte) ([]byte, bool) {
	return secret.EditJSON(b, func(doc any) (any, bool) { return doc, maskHeaderValues(doc) })
}

// ---- local validation shared by the endpoints ----

// checkID adds a problem unless id is a UUID in its canonical 36-character
// form; uuid.Parse alone would also take braces, urn: prefixes and bare hex,
// which the service's paths do not.
func checkID(v *ValidationError, what, id string) {
	if len(id) != 36 {
		v.Add(what, "%q is not a UUID (ids look like 3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f)", id)
		return
	}
	if _, err := uuid.Parse(id); err != nil {
		v.Add(what, "%q is not a UUID (ids look like 3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f)", id)
	}
}

func validID(what, id string) error {
	v := &ValidationError{}
	checkID(v, what, id)
	return v.Err()
}

// ---- running a call ----

// doJSON runs cl and decodes a 2xx answer into out (nil to ignore it).
func (c *Client) doJSON(ctx context.Context, cl *call, out any) error {
	res, err := c.execute(ctx, cl)
	if err != nil {
		return err
	}
	return c.decodeAnswer(cl, res, out)
}

// decodeAnswer decodes a 2xx answer, first making sure it is the service's.
func (c *Client) decodeAnswer(cl *call, res *result, out any) error {
	if out != nil {
		if ns := c.notService(cl, res.status, res.header, res.body); ns != nil {
			return ns
		}
	}
	return decodeInto(cl, res.body, out)
}

func decodeInto(cl *call, body []byte, out any) error {
	if out == nil {
		return nil
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return fmt.Errorf("%s: the service answered an empty body", cl.opName())
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: could not read the answer: %w", cl.opName(), err)
	}
	return nil
}
