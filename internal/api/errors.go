package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Exit codes of the command-line surface that errors of this package carry.
// cmdutil holds the full table; these are repeated here so that the client
// does not import the command layer.
const (
	exitUnexpected  = 1
	exitUsage       = 2
	exitBadData     = 3
	exitAuth        = 4
	exitPermission  = 5
	exitNotFound    = 6
	exitConflict    = 7
	exitRateLimited = 8
	exitServer      = 9
	exitNetwork     = 10
	exitInterrupted = 130
)

// Messages of the service that the client branches on. The service's
// clients are told to branch on status and errorType, but these few
// distinguish cases that need different handling (retry, reconciliation).
const (
	msgLocked            = "could not acquire lock: payment is locked"
	msgDisputed          = "payment is disputed"
	msgAlreadyClosed     = "already closed"
	msgCaptureTooMuch    = "could not capture more than not captured yet"
	msgRefundTooMuch     = "refund amount should be less or equal than billed amount"
	msgCloseNotAuth      = "only authorized payments can be closed"
	msgCaptureNotAuth    = "could not capture not authorized payments"
	msgRefundNoCaptures  = "can not refund payment that has no captures and not closed"
	msgAuthExpired       = "payment was already expired"
	msgWrongRegion       = "merchant region does not match cluster region"
	msgDisputesTestMode  = "disputes have no test mode"
	msgNoSuchPayment     = "no such payment"
	msgNoSuchWebhook     = "no such webhook"
	msgDisputeNotFound   = "dispute not found"
	msgMerchantNull      = "merchant is null"
	msgPlainNotFound     = "404 page not found"
	msgInvalidPaymentID  = "invalid payment id"
	msgInvalidWebhookURL = "invalid webhook url"
	msgWebhookExists     = "webhook already exists"
	msgMaxWebhooks       = "max number of webhooks reached"
)

// FieldError is one entry of the service's field-validation error form.
type FieldError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// APIError is a non-2xx answer of the service. The JSON tags shape the
// object that `-o json` writes to stderr.
type APIError struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// ErrorType is the service's errorType (bad_data, not_authorized, ...),
	// empty when the body did not carry one.
	ErrorType string `json:"errorType,omitempty"`
	// Message is the service's error, or the first line of a plain-text body.
	Message string `json:"message,omitempty"`
	// Fields are the entries of the field-validation form.
	Fields []FieldError `json:"errors,omitempty"`
	// Method and Path of the request that was refused (no query, no host).
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	// RetryAfter is the wait the service asked for (429, some 5xx), zero if
	// none.
	RetryAfter time.Duration `json:"-"`
	// Body is the answer as received, with the secrets it echoed masked.
	Body []byte `json:"-"`

	plainText bool   // the body was not JSON (Go's "404 page not found", a proxy's 500)
	region    string // Options.Region, named in the wrong-region hint
}

// parseAPIError reads any error body the service (or something in front of
// it) may send: the simple JSON form, the field-validation form, plain
// text, an empty body, or something unknown.
func parseAPIError(status int, header http.Header, body []byte, method, path string, now time.Time) *APIError {
	e := &APIError{
		Status: status,
		Method: method,
		Path:   path,
		Body:   append([]byte(nil), body...),
	}
	var wire struct {
		ErrorType string          `json:"errorType"`
		Error     json.RawMessage `json:"error"`
		Message   string          `json:"message"`
		Errors    []FieldError    `json:"errors"`
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &wire) == nil {
		e.ErrorType = wire.ErrorType
		e.Fields = wire.Errors
		// error is a string in every documented answer; anything else is
		// kept readable rather than dropped.
		var s string
		if len(wire.Error) > 0 && json.Unmarshal(wire.Error, &s) != nil {
			s = string(wire.Error)
		}
		if s == "" {
			s = wire.Message
		}
		e.Message = s
	} else if len(trimmed) > 0 {
		e.plainText = true
		e.Message = firstLine(trimmed)
	}
	if header != nil {
		e.RetryAfter = parseRetryAfter(header.Get("Retry-After"), now)
	}
	return e
}

// mask hides, in everything the answer put into e, the secrets it may
// echo (see Client.maskerFor) and the control characters a terminal would
// obey. Every string of an APIError comes from the answer; masking them
// here, where the answer becomes text, covers every place that shows the
// error: the error line, the -o json object, doctor, smoke's JUnit file,
// bulk reports and journals.
func (e *APIError) mask(m *secret.Masker) *APIError {
	e.ErrorType = m.Text(e.ErrorType)
	e.Message = m.Text(e.Message)
	for i := range e.Fields {
		f := &e.Fields[i]
		f.Field, f.Code, f.Message = m.Text(f.Field), m.Text(f.Code), m.Text(f.Message)
	}
	e.Body = m.Bytes(e.Body)
	return e
}

// firstLine is a short readable excerpt of a non-JSON body; markup and
// binary bodies give nothing, since echoing them would help nobody.
func firstLine(b []byte) string {
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 || b[0] == '<' {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSpace(line)
	const max = 200
	if utf8.RuneCountInString(line) > max {
		line = string([]rune(line)[:max]) + "…"
	}
	return line
}

func (e *APIError) Error() string {
	var b strings.Builder
	if e.Method != "" {
		b.WriteString(e.Method + " " + e.Path + ": ")
	}
	fmt.Fprintf(&b, "%d ", e.Status)
	if e.ErrorType != "" {
		b.WriteString(e.ErrorType)
	} else if t := http.StatusText(e.Status); t != "" {
		b.WriteString(strings.ToLower(t))
	} else {
		b.WriteString("error")
	}
	if e.Message != "" && !(e.plainText && e.Message == msgPlainNotFound) {
		b.WriteString(": " + e.Message)
	}
	for i, f := range e.Fields {
		if i == 0 && e.Message == "" {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(f.Field)
		switch {
		case f.Message != "":
			b.WriteString(": " + f.Message)
			if f.Code != "" {
				b.WriteString(" (" + f.Code + ")")
			}
		case f.Code != "":
			b.WriteString(": " + f.Code)
		}
	}
	return b.String()
}

// ErrorDetails are the facts `-o json` writes with the error (see
// output.ErrorDetailer).
func (e *APIError) ErrorDetails() map[string]any {
	d := map[string]any{"status": e.Status, "method": e.Method, "path": e.Path}
	if e.ErrorType != "" {
		d["error_type"] = e.ErrorType
	}
	if e.Message != "" {
		d["message"] = e.Message
	}
	if len(e.Fields) > 0 {
		d["errors"] = e.Fields
	}
	if e.RetryAfter > 0 {
		d["retry_after_seconds"] = int(e.RetryAfter.Round(time.Second) / time.Second)
	}
	// The service's own answer, masked (see mask): its JSON as it came,
	// or its text.
	if body := bytes.TrimSpace(e.Body); len(body) > 0 {
		if json.Valid(body) {
			d["response"] = json.RawMessage(body)
		} else if utf8.Valid(body) && body[0] != '<' {
			d["response"] = secret.Printable(string(body))
		}
	}
	return d
}

// ExitCode maps the HTTP status to the documented exit code.
func (e *APIError) ExitCode() int {
	switch {
	case e.Status == http.StatusBadRequest:
		return exitBadData
	case e.Status == http.StatusUnauthorized:
		return exitAuth
	case e.Status == http.StatusForbidden:
		return exitPermission
	case e.Status == http.StatusNotFound:
		return exitNotFound
	case e.Status == http.StatusConflict:
		return exitConflict
	case e.Status == http.StatusTooManyRequests:
		return exitRateLimited
	case e.Status >= 500:
		return exitServer
	default:
		return exitUnexpected
	}
}

func (e *APIError) has(msg string) bool {
	return strings.Contains(strings.ToLower(e.Message), msg)
}

// sandboxHint is the next step after a refusal of a sandbox's own paths
// (/_sandbox/...), which no key decides.
func (e *APIError) sandboxHint() (string, bool) {
	switch {
	case e.Status == http.StatusForbidden:
		return "the sandbox takes control requests from this machine only, without another site's Origin or a host name other than its own address (bnpl and curl send none)", true
	case e.Status == http.StatusNotFound && strings.Contains(e.Path, "/deliveries/"):
		return "check the id with `bnpl sandbox deliveries`", true
	case e.Status == http.StatusNotFound && !e.plainText:
		return "check the id; `bnpl sandbox` verbs act on the sandbox named on stderr", true
	}
	return "", false
}

// Hint is the next step a person can take. It is empty when there is
// nothing useful to add to the message itself.
func (e *APIError) Hint() string {
	if strings.HasPrefix(e.Path, "/_sandbox/") {
		if h, ok := e.sandboxHint(); ok {
			return h
		}
	}
	switch {
	case e.Status == http.StatusBadRequest:
		return e.badDataHint()
	case e.Status == http.StatusUnauthorized:
		if e.has(msgMerchantNull) {
			return "the merchant_code does not belong to this key; check both with `bnpl profiles show`"
		}
		return "check the key in use (BNPL_SECRET_KEY when set, else the profile's: `bnpl profiles show`), or store a new one with `bnpl login`"
	case e.Status == http.StatusForbidden:
		switch {
		case e.has(msgWrongRegion):
			if e.region != "" {
				return fmt.Sprintf("this key belongs to another region than %q; use --profile of that region or set the profile's region (`bnpl profiles set`)", e.region)
			}
			return "this key belongs to another region; use --profile of that region or set the profile's region (`bnpl profiles set`)"
		case e.has(msgDisputesTestMode):
			return "disputes are live only: use --live with a live key (sk_…)"
		}
		return "the key may not do this: check the region, test or live mode, and whether the feature (such as tokens) is enabled for the merchant"
	case e.Status == http.StatusNotFound:
		switch {
		case e.plainText:
			return "the service does not know this path or method"
		case e.has(msgNoSuchPayment):
			return "check the id and that the profile (merchant, region, test/live) is the one that created it"
		case e.has(msgNoSuchWebhook):
			return "check the id with `bnpl webhooks list` and that the profile is the one that registered it"
		case e.has(msgDisputeNotFound):
			return "check the id with `bnpl disputes list --live` (a payment's disputes: `bnpl disputes list --payment PAYMENT-ID`); disputes exist on live payments only"
		}
		return "check the id and that the profile is the one that created it"
	case e.Status == http.StatusConflict:
		switch {
		case e.has(msgLocked):
			return "another request is working on this payment; retry"
		case e.has(msgDisputed):
			return "resolve the dispute first (`bnpl disputes list --live`)"
		}
		return "the current state does not allow this; read the resource again before retrying"
	case e.Status == http.StatusTooManyRequests:
		// A flag that slows the command down is named only where the
		// command has it: the payments list reads pages at once
		// (--concurrency); a single checkout, move or read has none.
		lower := ""
		if e.Method == http.MethodGet && strings.HasPrefix(e.Path, "/api/v2/payments") && !strings.Contains(strings.TrimPrefix(e.Path, "/api/v2/payments"), "/") {
			lower = ", or lower --concurrency"
		}
		if e.RetryAfter > 0 {
			return fmt.Sprintf("rate limited: wait %s and retry%s", e.RetryAfter.Round(time.Second), lower)
		}
		return "rate limited: wait and retry" + lower
	case e.Status >= 500 && strings.Contains(e.Message, "bnpl sandbox reset"):
		return "the sandbox's state is damaged: retrying will not help"
	case e.Status >= 500 && e.Method == http.MethodGet:
		return "the service failed; a read changes nothing: retry later"
	case e.Status >= 500 && isMovePath(e.Path):
		return "the service failed; retry later. The " + moveWord(e.Path) + " may or may not have been made: re-run it with the same --reference-id, then check with `bnpl payments get " + paymentIDIn(e.Path) + "`"
	case e.Status >= 500:
		return "the service failed; the request may or may not have taken effect: read it back before sending it again"
	}
	return ""
}

func (e *APIError) badDataHint() string {
	switch {
	case len(e.Fields) > 0:
		return "fix the fields named above; amounts take at most 2 decimals (AED, SAR) or 3 (KWD)"
	case e.has(msgCaptureTooMuch):
		return "the amount is above what is left to capture; `bnpl payments get " + paymentIDIn(e.Path) + "` shows the capturable amount"
	case e.has(msgRefundTooMuch):
		return "the amount is above what is left to refund; `bnpl payments get " + paymentIDIn(e.Path) + "` shows the refundable amount"
	case e.has(msgCaptureNotAuth):
		return "only AUTHORIZED payments can be captured; check the status with `bnpl payments get " + paymentIDIn(e.Path) + "`"
	case e.has(msgCloseNotAuth):
		return "only AUTHORIZED payments can be closed; check the status with `bnpl payments get " + paymentIDIn(e.Path) + "`"
	case e.has(msgAuthExpired):
		return "the authorization expired before the call: nothing was charged; treat the payment as expired"
	case e.has(msgRefundNoCaptures):
		return "only CLOSED payments with captures can be refunded; capture first"
	case e.has(msgAlreadyClosed):
		return "the payment is closed: nothing more can be captured or closed (refunds still work)"
	case e.has(msgInvalidPaymentID):
		return "payment ids are UUIDs such as 3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f"
	case e.has("is supported, but got"):
		return "the currency must be the one of the merchant's country (its merchant_code)"
	case e.has(msgInvalidWebhookURL):
		return "the URL must be an absolute https:// address that the service can reach from the internet"
	case e.has(msgWebhookExists):
		return "this URL is already registered; see `bnpl webhooks list`"
	case e.has(msgMaxWebhooks):
		return "remove a webhook with `bnpl webhooks remove ID` first"
	case (e.has("decode") || e.has("bad_request")) && e.Method == http.MethodGet:
		// A read has no body: what it could not read is its query.
		return "the service could not read the request's filters; check each value (a status it does not know, a date)"
	case e.has("decode") || strings.TrimSpace(e.Message) == "EOF" || e.has("bad_request"):
		return "the service could not read the request; check the body's JSON and the ids"
	case e.has("positive") || e.has("less then or equals zero"):
		return "amounts and quantities must be greater than zero"
	}
	return ""
}

// NetworkError is a request that got no answer, after retries: a refused
// connection, a dropped connection, a timeout. Unless the connection was
// never made, the service may or may not have acted on it.
type NetworkError struct {
	// Op is the request with its real path, "POST
	// /api/v2/payments/3fa85f64-…/captures": what the message names.
	Op string
	// Route is the request with its ids as placeholders, "POST
	// /api/v2/payments/{id}/captures", for grouping; empty when unknown.
	Route string
	Err   error

	// masker hides what the cause quotes of a malformed answer.
	masker *secret.Masker
}

func (e *NetworkError) Error() string { return e.masker.Text(e.text()) }

func (e *NetworkError) text() string {
	cause := e.Err
	var ue *url.Error
	if errors.As(cause, &ue) {
		// url.Error repeats the method and the full URL that Op already names.
		cause = ue.Err
	}
	switch {
	case errors.Is(e.Err, context.Canceled):
		return e.Op + ": interrupted"
	case isTimeout(e.Err):
		return fmt.Sprintf("%s: timed out: %v", e.Op, cause)
	case neverConnected(e.Err):
		return fmt.Sprintf("%s: could not connect: %v", e.Op, cause)
	}
	return fmt.Sprintf("%s: network failure: %v", e.Op, cause)
}

func (e *NetworkError) Unwrap() error { return e.Err }

// ErrorDetails are the facts `-o json` writes with the error.
func (e *NetworkError) ErrorDetails() map[string]any {
	d := map[string]any{"outcome": "unknown"}
	if method, path, ok := strings.Cut(e.Op, " "); ok {
		d["method"], d["path"] = method, path
	}
	if _, route, ok := strings.Cut(e.Route, " "); ok {
		d["route"] = route
	}
	if neverConnected(e.Err) {
		d["outcome"] = "not_sent"
	}
	return d
}

// ExitCode is 10 (outcome unknown), or 130 when the person interrupted.
func (e *NetworkError) ExitCode() int {
	if errors.Is(e.Err, context.Canceled) {
		return exitInterrupted
	}
	return exitNetwork
}

func (e *NetworkError) Hint() string {
	if neverConnected(e.Err) {
		return "nothing was sent: check the network and the base URL (`bnpl doctor`)"
	}
	if strings.HasPrefix(e.Op, http.MethodGet+" ") {
		return "the read got no answer; a read changes nothing: retry, and check the network and the base URL (`bnpl doctor`)"
	}
	path := strings.TrimSpace(e.Op[strings.IndexByte(e.Op, ' ')+1:])
	if isMovePath(path) {
		return "the request may or may not have reached the service: re-run the " + moveWord(path) + " with the same --reference-id, then check with `bnpl payments get " + paymentIDIn(path) + "`"
	}
	return "the request may or may not have reached the service: read it back before sending it again"
}

// paymentIDIn is the payment id in a path under /api/v2/payments/, or
// "ID" when there is none, for a hint's command.
func paymentIDIn(path string) string {
	rest, ok := strings.CutPrefix(path, "/api/v2/payments/")
	if !ok {
		return "ID"
	}
	id, _, _ := strings.Cut(rest, "/")
	if validID("payment id", id) != nil {
		return "ID"
	}
	return id
}

// isMovePath is whether path is a capture's or a refund's.
func isMovePath(path string) bool {
	return paymentIDIn(path) != "ID" && (strings.HasSuffix(path, "/captures") || strings.HasSuffix(path, "/refunds"))
}

func moveWord(path string) string {
	if strings.HasSuffix(path, "/refunds") {
		return "refund"
	}
	return "capture"
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Problem is one local validation failure. Path names the field the way the
// service's field errors do ("$.payment.amount") or the argument ("payment
// id").
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ValidationError lists everything wrong with a request found before it was
// sent; nothing was sent.
type ValidationError struct {
	Problems []Problem `json:"problems"`
}

func (e *ValidationError) Error() string {
	lines := make([]string, 0, len(e.Problems))
	for _, p := range e.Problems {
		lines = append(lines, p.Path+": "+p.Message)
	}
	if len(lines) == 0 {
		return "invalid request"
	}
	return strings.Join(lines, "\n")
}

// ErrorDetails are the facts `-o json` writes with the error.
func (e *ValidationError) ErrorDetails() map[string]any {
	return map[string]any{"problems": e.Problems}
}

func (e *ValidationError) ExitCode() int { return exitUsage }
func (e *ValidationError) Hint() string {
	return "nothing was sent; fix the values above and run again"
}

// Add records a problem.
func (e *ValidationError) Add(path, format string, args ...any) {
	e.Problems = append(e.Problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// Err is the error to return: nil when there were no problems. It spares
// callers the typed-nil trap of returning a *ValidationError.
func (e *ValidationError) Err() error {
	if e == nil || len(e.Problems) == 0 {
		return nil
	}
	return e
}

// OptionsError is a client that cannot be built as asked (a bad base URL, a
// key over plain http to a remote host). Nothing was sent.
type OptionsError struct {
	Msg  string
	hint string
}

func (e *OptionsError) Error() string { return e.Msg }
func (e *OptionsError) ExitCode() int { return exitUsage }
func (e *OptionsError) Hint() string  { return e.hint }

type dryRunError struct{}

func (dryRunError) Error() string { return "dry run: nothing was sent" }
func (dryRunError) ExitCode() int { return 0 }

// ErrDryRun is returned, after the request was written to Options.DryRun,
// instead of sending it. It exits 0.
var ErrDryRun error = dryRunError{}

// hinted replaces the hint of an error while keeping everything else.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }
func (h *hinted) Hint() string  { return h.hint }
func (h *hinted) ExitCode() int {
	var coded interface{ ExitCode() int }
	if errors.As(h.err, &coded) {
		return coded.ExitCode()
	}
	return exitUnexpected
}

// WithHint returns err with hint in place of its own, keeping its message,
// exit code and chain (errors.As still finds the *APIError). Callers that
// know more than the client, such as the remainder of a payment, use it.
func WithHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hinted{err: err, hint: hint}
}

// AsAPIError finds the *APIError in err's chain.
func AsAPIError(err error) (*APIError, bool) {
	var e *APIError
	ok := errors.As(err, &e)
	return e, ok
}

// StatusOf is the HTTP status of the APIError in err's chain, 0 if none.
func StatusOf(err error) int {
	if e, ok := AsAPIError(err); ok {
		return e.Status
	}
	return 0
}

func apiErrorWith(err error, status int, msg string) bool {
	e, ok := AsAPIError(err)
	return ok && e.Status == status && e.has(msg)
}

// IsLocked: another request held the payment's lock (409); retrying is safe.
func IsLocked(err error) bool { return apiErrorWith(err, http.StatusConflict, msgLocked) }

// IsDisputed: a refund was blocked by an active dispute (409).
func IsDisputed(err error) bool { return apiErrorWith(err, http.StatusConflict, msgDisputed) }

// IsAlreadyClosed: the payment was already CLOSED (400).
func IsAlreadyClosed(err error) bool {
	return apiErrorWith(err, http.StatusBadRequest, msgAlreadyClosed)
}

// IsNotFound: the service answered 404, in either form.
func IsNotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// IsRateLimited: the service answered 429 (after retries).
func IsRateLimited(err error) bool { return StatusOf(err) == http.StatusTooManyRequests }

// IsOutcomeUnknown reports whether the service may have acted on a request
// that ended in err: a network failure or an interruption after the
// connection was made, or a 5xx. Bulk runs journal such rows for a re-run
// with the same reference_id.
func IsOutcomeUnknown(err error) bool {
	var ne *NetworkError
	if errors.As(err, &ne) {
		return !neverConnected(ne.Err)
	}
	return StatusOf(err) >= 500
}
