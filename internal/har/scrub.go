package har

import (
	"bytes"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Scrubber makes what a recorder saw fit for a file others may read: the
// key of every Authorization header masked (sk_test_****abcd, enough to
// tell test from live and one key from another), every header value it
// does not know to be harmless masked as the service masks a webhook
// header (****wxyz), each webhook header.value masked by its place in a
// body, and every key and header value it has seen masked wherever else it
// turns up (an echo in an answer, a notification). With a Redactor, the
// buyer's data in bodies is replaced too. It is safe for concurrent use.
type Scrubber struct {
	mu     sync.Mutex
	known  *secret.Masker
	redact *Redactor
}

// NewScrubber returns a scrubber that knows secrets already (the header
// value a receiver checks); r nil leaves buyer data as it is.
func NewScrubber(r *Redactor, secrets ...string) *Scrubber {
	return &Scrubber{known: secret.NewMasker(secrets...), redact: r}
}

// Redacts tells whether buyer data is replaced.
func (s *Scrubber) Redacts() bool { return s.redact != nil }

// Learn adds secrets to mask wherever they appear from now on.
func (s *Scrubber) Learn(secrets ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.known = s.known.With(secrets...)
}

func (s *Scrubber) masker() *secret.Masker {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.known
}

func (s *Scrubber) text(v string) string { return s.masker().String(s.buyer(v)) }

// buyer replaces the buyer values seen so far, when the scrubber redacts.
func (s *Scrubber) buyer(v string) string {
	if s.redact == nil {
		return v
	}
	return s.redact.Text(v)
}

// URL is a URL with its credentials and any secret in it masked (and the
// buyer's values seen so far replaced, when the scrubber redacts; a value
// in a URL may be escaped: both forms are replaced).
func (s *Scrubber) URL(raw string) string {
	raw = s.buyer(raw)
	if u, err := url.QueryUnescape(raw); err == nil && u != raw && s.redact != nil {
		if r := s.redact.Text(u); r != u {
			raw = r
		}
	}
	return s.masker().String(secret.RedactUserinfo(raw))
}

// keptHeaders carry nothing secret: their values are recorded as they are.
var keptHeaders = map[string]bool{
	"accept": true, "accept-encoding": true, "accept-language": true, "cache-control": true,
	"connection": true, "content-encoding": true, "content-length": true, "content-type": true,
	"date": true, "etag": true, "expires": true, "host": true, "last-modified": true,
	"location": true, "retry-after": true, "server": true, "user-agent": true, "vary": true,
	"x-merchant-code": true, "x-request-id": true, "transfer-encoding": true, "keep-alive": true,
	"x-content-type-options": true, "x-frame-options": true, "strict-transport-security": true,
	"content-security-policy": true, "referrer-policy": true, "idempotency-key": true,
}

// Headers lists h for the file, sorted by name, each value masked unless
// the header is known to carry nothing secret.
func (s *Scrubber) Headers(h http.Header) []NameValue {
	out := []NameValue{}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		lower := strings.ToLower(name)
		for _, v := range h[name] {
			out = append(out, NameValue{Name: name, Value: s.headerValue(lower, v)})
		}
	}
	return out
}

func (s *Scrubber) headerValue(lower, v string) string {
	switch {
	case lower == "authorization" || lower == "proxy-authorization":
		// The credentials, however spaced (tabs, several spaces), and
		// the whole value besides.
		if words := strings.Fields(v); len(words) > 1 {
			s.Learn(words[1:]...)
		}
		s.Learn(v)
		return secret.MaskAuthorization(v)
	case keptHeaders[lower] || strings.HasPrefix(lower, "bnpl-sandbox-") || strings.HasPrefix(lower, "access-control-"):
		return s.text(v)
	}
	return secret.MaskValue(s.buyer(v))
}

// Body is a body fit for the file. A JSON body has each webhook
// header.value masked by its place (and learnt, so that an echo is masked
// too), the buyer's data replaced when the scrubber redacts, and every
// known or key-shaped secret masked. A body cut at the bound cannot be
// read as JSON: unless it is plainly not JSON, it is withheld.
func (s *Scrubber) Body(b []byte, cut bool) []byte {
	if len(b) == 0 {
		return b
	}
	trimmed := bytes.TrimSpace(b)
	isJSON := len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
	if cut && isJSON {
		return []byte("(withheld: the body was cut at the recording's bound, and a part of a JSON document cannot be masked by its fields)")
	}
	if isJSON {
		out, _ := secret.EditJSON(b, func(doc any) (any, bool) {
			changed := s.maskHeaderValues(doc)
			if s.redact != nil && s.redact.Value(doc) {
				changed = true
			}
			return doc, changed
		})
		b = out
	} else if s.redact != nil {
		b = []byte(s.redact.Text(string(b)))
	}
	return s.masker().Bytes(b)
}

// maskHeaderValues masks the value of every object held under "header"
// (a webhook's signing header, in a registration or an answer), learning
// each value first.
func (s *Scrubber) maskHeaderValues(v any) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if h, ok := child.(map[string]any); ok && strings.EqualFold(k, "header") {
				// A value the service masked already ("****wxyz") is left
				// as it is: masked again it would lose the characters the
				// service shows.
				if value, ok := h["value"].(string); ok && value != "" && !strings.HasPrefix(value, "****") {
					s.Learn(value)
					h["value"] = secret.MaskValue(value)
					changed = true
				}
			}
			if s.maskHeaderValues(child) {
				changed = true
			}
		}
	case []any:
		for _, child := range t {
			if s.maskHeaderValues(child) {
				changed = true
			}
		}
	}
	return changed
}
