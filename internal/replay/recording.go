// Package replay plays a recording of an app's traffic with the service
// (a HAR file from `bnpl sandbox record`, with the notifications `bnpl
// listen --record` added) against a sandbox. One engine serves two uses:
//
//   - verify: the recording's own requests are sent, in order, to a fresh
//     sandbox, and each answer is compared with the service's (Verify);
//   - replay: the app's requests arrive at a stand-in of the service, are
//     matched to the recording's and checked against them, and are
//     answered by the sandbox (Server).
//
// Either way the engine maps the service's ids to the sandbox's as answers
// arrive, plays what the customer did between requests (an approval, a
// rejection, an expiry, a dispute) as the recording shows it, and
// compares JSON by the rules of compare.go.
package replay

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// Exchange is one entry of a recording, read for replay.
type Exchange struct {
	// N is the entry's number in the recording, from 1, in the order the
	// requests started.
	N      int
	Kind   string // har.KindExchange or har.KindNotification
	Method string
	Path   string // the URL's path, below the recorded base URL's path
	Query  string // the raw query
	Header http.Header
	Body   []byte
	// Key is the Authorization key as recorded (masked: sk_test_****abcd);
	// KeyID tells it from others masked alike.
	Key, KeyID string

	Status   int
	RespType string
	Answer   []byte
	// Cut is set when either body was cut at the recording's bound, or
	// withheld because its content encoding could not be undone.
	Cut bool
}

// Recording is a recording read for replay.
type Recording struct {
	Name      string
	Meta      har.LogMeta
	Exchanges []*Exchange // every entry, in order
}

// Load reads a recording.
func Load(name string, data []byte) (*Recording, error) {
	doc, err := har.Parse(name, data)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Name: name}
	if doc.Log.Bnpl != nil {
		rec.Meta = *doc.Log.Bnpl
	}
	basePath := ""
	if u, err := url.Parse(rec.Meta.Target); err == nil {
		basePath = strings.TrimRight(u.Path, "/")
	}
	for i := range doc.Log.Entries {
		e := &doc.Log.Entries[i]
		x := &Exchange{N: i + 1, Kind: e.Kind(), Method: e.Request.Method, Header: http.Header{},
			Body: e.RequestBody(), Status: e.Response.Status, RespType: e.Response.Content.MimeType,
			Answer: e.ResponseBody(), Cut: e.Truncated("request") || e.Truncated("response") ||
				e.Withheld("request") || e.Withheld("response")}
		for _, h := range e.Request.Headers {
			x.Header.Add(h.Name, h.Value)
		}
		if x.RespType == "" {
			x.RespType = har.Header(e.Response.Headers, "Content-Type")
		}
		if u, err := url.Parse(e.Request.URL); err == nil {
			x.Path, x.Query = u.Path, u.RawQuery
			if x.Kind == har.KindExchange && basePath != "" {
				x.Path = strings.TrimPrefix(x.Path, basePath)
			}
		}
		if _, key, ok := strings.Cut(x.Header.Get("Authorization"), " "); ok {
			x.Key = key
		}
		if e.Bnpl != nil {
			x.KeyID = e.Bnpl.KeyID
		}
		rec.Exchanges = append(rec.Exchanges, x)
	}
	return rec, nil
}

// IsService tells whether the exchange is one of the service's endpoints
// (a sandbox's own /_sandbox/ paths and other hosts' traffic are not).
func (x *Exchange) IsService() bool {
	return x.Kind == har.KindExchange && strings.HasPrefix(x.Path, "/api/")
}

// keyName tells one recorded key from another.
func (x *Exchange) keyName() string { return x.Key + "#" + x.KeyID }

// Live tells whether the exchange used a live key.
func (x *Exchange) Live() bool {
	return strings.HasPrefix(x.Key, "sk_") && !strings.HasPrefix(x.Key, "sk_test_")
}

// Notifications counts the recording's notifications.
func (r *Recording) Notifications() int {
	n := 0
	for _, x := range r.Exchanges {
		if x.Kind == har.KindNotification {
			n++
		}
	}
	return n
}
