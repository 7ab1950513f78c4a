// Package har reads and writes HTTP Archive (HAR 1.2) files: the format
// browsers, proxies and HTTP tools exchange recorded traffic in. bnpl
// writes one while it records an integration's traffic with the service
// (`bnpl sandbox record`) and the service's notifications (`bnpl listen
// --record`), with every key and webhook header value masked and, when
// asked, the buyer's data replaced; `bnpl sandbox verify` and `replay`
// read it back.
//
// bnpl's own facts about a recording ride in fields whose names start with
// an underscore, which the format reserves for tools: "_bnpl" on the log
// (the region and target recorded, whether buyer data was replaced) and on
// each entry (an exchange of the app with the service, or a notification
// the service sent; which bodies were cut at the bound).
package har

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Version is the HAR version bnpl writes.
const Version = "1.2"

// Entry kinds (EntryMeta.Kind).
const (
	KindExchange     = "exchange"     // a request of the app and the service's answer
	KindNotification = "notification" // a notification the service sent, and the receiver's answer
)

// TimeLayout is how startedDateTime is written: ISO 8601 in UTC to the
// microsecond, which every HAR viewer parses and which keeps the order of
// requests a concurrent app sent close together.
const TimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// File is a HAR document.
type File struct {
	Log Log `json:"log"`
}

// Log is a HAR log: who wrote it and its entries.
type Log struct {
	Version string          `json:"version"`
	Creator Creator         `json:"creator"`
	Bnpl    *LogMeta        `json:"_bnpl,omitempty"`
	Entries []Entry         `json:"entries"`
	Comment string          `json:"comment,omitempty"`
	Pages   json.RawMessage `json:"pages,omitempty"`
}

// Creator names the program that wrote the log.
type Creator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// LogMeta is what bnpl records about a recording as a whole.
type LogMeta struct {
	// Region is the service's region the traffic went to (ae or sa).
	Region string `json:"region,omitempty"`
	// Target is the base URL recorded against, credentials removed.
	Target string `json:"target,omitempty"`
	// Redacted is true when buyer names, emails, phones, dates of birth and
	// addresses were replaced by stand-ins (the same value always by the
	// same stand-in).
	Redacted bool `json:"redacted,omitempty"`
}

// Entry is one recorded exchange.
type Entry struct {
	StartedDateTime string     `json:"startedDateTime"`
	Time            float64    `json:"time"`
	Request         Request    `json:"request"`
	Response        Response   `json:"response"`
	Cache           struct{}   `json:"cache"`
	Timings         Timings    `json:"timings"`
	Comment         string     `json:"comment,omitempty"`
	Bnpl            *EntryMeta `json:"_bnpl,omitempty"`
}

// EntryMeta is what bnpl records about one entry.
type EntryMeta struct {
	Kind string `json:"kind"`
	// Truncated names the bodies cut at the recording's bound ("request",
	// "response"): they are kept in part, and not compared.
	Truncated []string `json:"truncated,omitempty"`
	// Withheld names the bodies left out because their content encoding
	// could not be undone (an encoded body cannot be masked): a note
	// stands in their place, and they are not compared.
	Withheld []string `json:"withheld,omitempty"`
	// KeyID tells the request's key from others masked alike
	// (sk_test_ae_sandbox and sk_test_kw_sandbox are both
	// sk_test_****dbox): the start of a SHA-256 of the key, which says
	// nothing of a key drawn at random.
	KeyID string `json:"key_id,omitempty"`
}

// NameValue is a header, a query parameter or a cookie.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Request is a recorded request.
type Request struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []NameValue `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	QueryString []NameValue `json:"queryString"`
	PostData    *PostData   `json:"postData,omitempty"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int         `json:"bodySize"`
}

// PostData is a request body. Encoding "base64" (a tool's own field: HAR
// has none for request bodies) marks a body that is not UTF-8 text.
type PostData struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	Encoding string `json:"_encoding,omitempty"`
}

// Response is a recorded answer.
type Response struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []NameValue `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	Content     Content     `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int         `json:"bodySize"`
}

// Content is an answer's body.
type Content struct {
	Size     int    `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Encoding string `json:"encoding,omitempty"`
}

// Timings are the phases of an exchange in milliseconds; -1 where a phase
// does not apply.
type Timings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// Header answers the value of the first header of that name (any case).
func Header(list []NameValue, name string) string {
	for _, h := range list {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// Started is the entry's start time; the zero time when it does not parse.
func (e *Entry) Started() time.Time {
	t, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Kind is the entry's kind: an exchange unless bnpl marked it otherwise.
func (e *Entry) Kind() string {
	if e.Bnpl != nil && e.Bnpl.Kind != "" {
		return e.Bnpl.Kind
	}
	return KindExchange
}

// Truncated tells whether the body of that side ("request" or
// "response") was cut at the bound.
func (e *Entry) Truncated(side string) bool {
	if e.Bnpl == nil {
		return false
	}
	for _, s := range e.Bnpl.Truncated {
		if s == side {
			return true
		}
	}
	return false
}

// Withheld tells whether the body of that side ("request" or "response")
// was left out because its content encoding could not be undone.
func (e *Entry) Withheld(side string) bool {
	return e.Bnpl != nil && slices.Contains(e.Bnpl.Withheld, side)
}

// RequestBody is the request's body as sent (decoded, when bnpl wrote
// the recording: a body is kept without its content encoding).
func (e *Entry) RequestBody() []byte {
	if e.Request.PostData == nil {
		return nil
	}
	return decodeText(e.Request.PostData.Text, e.Request.PostData.Encoding)
}

// ResponseBody is the answer's body as received.
func (e *Entry) ResponseBody() []byte {
	return decodeText(e.Response.Content.Text, e.Response.Content.Encoding)
}

func decodeText(text, encoding string) []byte {
	if encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(text)
		if err == nil {
			return b
		}
	}
	return []byte(text)
}

// encodeText is a body as HAR text: itself when it is UTF-8, else base64.
func encodeText(b []byte) (text, encoding string) {
	if utf8.Valid(b) {
		return string(b), ""
	}
	return base64.StdEncoding.EncodeToString(b), "base64"
}
