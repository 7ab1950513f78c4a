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
	"bytes"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// Exchange is one entry of a recording, read for replay.
type Exchange struct {
	// N is the entry's place in the recording's file, from 1.
	N      int
	Kind   string // har.KindExchange or har.KindNotification
	Method string
	Path   string // the URL's path, below the recorded base URL's path
	Query  string // the raw query
	// Header holds the request's headers a replay uses (replayedHeaders);
	// a loaded recording's exchanges share equal ones: read it only.
	Header http.Header
	// Body and Answer are the request's and the answer's bodies when set
	// in memory (an app's request, a test's edit); a loaded recording
	// keeps them in its spool instead, and body and answer read either.
	Body []byte
	// Key is the Authorization key as recorded (masked: sk_test_****abcd);
	// KeyID tells it from others masked alike.
	Key, KeyID string

	Status   int
	RespType string
	Answer   []byte
	bodies   *spool
	bodyAt   span
	answerAt span
	host     string
	started  time.Time
	ended    time.Time
	// Cut is set when either body was cut at the recording's bound, or
	// withheld because its content encoding could not be undone.
	Cut bool
}

// Recording is a recording read for replay.
type Recording struct {
	Name string
	Meta har.LogMeta
	// Exchanges are the entries replayed: the service's requests and the
	// notifications, in the order the requests started.
	Exchanges []*Exchange
	// Entries counts the file's entries; LeftOut those not replayed.
	Entries int
	LeftOut []LeftOut
	bodies  *spool
}

// Close lets go of the recording's bodies (their temporary file).
func (r *Recording) Close() error { return r.bodies.close() }

// body is the request's body as recorded.
func (x *Exchange) body() []byte {
	if x.Body != nil || x.bodies == nil {
		return x.Body
	}
	return x.bodies.get(x.bodyAt)
}

// answer is the answer's body as recorded.
func (x *Exchange) answer() []byte {
	if x.Answer != nil || x.bodies == nil {
		return x.Answer
	}
	return x.bodies.get(x.answerAt)
}

// replayedHeaders are the request headers a replay reads of a recorded
// request (the rest are not kept): the credentials, the merchant code,
// and what is sent on to the sandbox.
var replayedHeaders = []string{"Authorization", "X-Merchant-Code", "Content-Type", "Content-Encoding", "Idempotency-Key"}

// LeftOut counts the entries of a recording left out of a replay, for
// one reason.
type LeftOut struct {
	Why   string `json:"why"`
	Count int    `json:"count"`
}

const notRequest = "not a request (no method or URL)"

// LoadOptions bound a reading and name the service's host.
type LoadOptions struct {
	Limits har.Limits
	// Host is the service's host (HOST or HOST:PORT) whose entries are
	// kept; "" takes the recorded target's, else the one host the file's
	// /api/ requests went to.
	Host string
}

// Load reads a recording held in memory.
func Load(name string, data []byte) (*Recording, error) {
	return LoadFrom(name, bytes.NewReader(data), LoadOptions{})
}

// LoadFrom reads a recording entry by entry (one held at a time, only
// what the replay needs of it kept), from bnpl or any other tool that
// writes HAR 1.2: bodies in base64 or with their content encoding are
// decoded, HTTP/2 pseudo-headers left aside. Only the service's host is
// kept; what is left out is counted by reason. Exchanges are numbered by
// their place in the file, and put in the order their requests started.
func LoadFrom(name string, r io.Reader, opts LoadOptions) (*Recording, error) {
	rec := &Recording{Name: name, bodies: newSpool()}
	var all []*Exchange
	left := map[string]int{}
	counted := &countingReader{r: r}
	strs := newInterner()
	log, err := har.Scan(name, counted, opts.Limits, func(n int, e *har.Entry) error {
		rec.Entries++
		if e.Kind() == har.KindExchange && (e.Request.Method == "" || e.Request.URL == "") {
			left[notRequest]++ // nothing of it is kept
			return nil
		}
		x, err := exchangeOf(n, e, rec.bodies, strs)
		if err != nil {
			return err
		}
		if limit := maxSpool(counted.n); rec.bodies.size > limit {
			return &har.LimitError{Path: name, What: "bytes of decoded bodies (16 times the file and 64 MiB)", Limit: limit}
		}
		all = append(all, x)
		return nil
	})
	if err != nil {
		rec.Close()
		return nil, err
	}
	if log.Bnpl != nil {
		rec.Meta = *log.Bnpl
	}
	host, basePath, err := serviceHost(name, rec.Meta.Target, opts.Host, all)
	if err != nil {
		rec.Close()
		return nil, err
	}
	for _, x := range all {
		if x.Kind == har.KindExchange && basePath != "" {
			x.Path = strings.TrimPrefix(x.Path, basePath)
		}
		why := ""
		switch {
		case x.Kind == har.KindNotification:
		case x.host == "" || x.Method == "":
			why = notRequest
		case host != "" && !strings.EqualFold(x.host, host):
			why = "another host than the service's (" + host + ")"
		case strings.HasPrefix(x.Path, "/_sandbox/"):
			why = "the sandbox's own /_sandbox/ paths"
		case !strings.HasPrefix(x.Path, "/api/"):
			why = "not the service's /api/ paths"
		}
		if why != "" {
			left[why]++
			continue
		}
		rec.Exchanges = append(rec.Exchanges, x)
	}
	for why, n := range left {
		rec.LeftOut = append(rec.LeftOut, LeftOut{Why: why, Count: n})
	}
	sort.Slice(rec.LeftOut, func(i, j int) bool { return rec.LeftOut[i].Why < rec.LeftOut[j].Why })
	sort.SliceStable(rec.Exchanges, func(i, j int) bool { return rec.Exchanges[i].started.Before(rec.Exchanges[j].started) })
	return rec, nil
}

// exchangeOf is what a replay keeps of one entry: its bodies go to the
// spool, the strings many entries share (methods, keys, content types)
// are held once.
func exchangeOf(n int, e *har.Entry, bodies *spool, strs interner) (*Exchange, error) {
	x := &Exchange{N: n, Kind: strs.get(e.Kind()), Method: strs.get(e.Request.Method),
		Status: e.Response.Status, RespType: strs.get(e.Response.Content.MimeType), started: e.Started(),
		ended: e.Started().Add(time.Duration(e.Time * float64(time.Millisecond))), bodies: bodies,
		Cut: e.Truncated("request") || e.Truncated("response") || e.Withheld("request") || e.Withheld("response")}
	var err error
	sentBody, encoded := body(e.RequestBody(), e.Request.Headers)
	if x.bodyAt, err = bodies.put(sentBody); err != nil {
		return nil, err
	}
	answer, _ := body(e.ResponseBody(), e.Response.Headers)
	if x.answerAt, err = bodies.put(answer); err != nil {
		return nil, err
	}
	sentHeaders := e.Request.Headers
	if !encoded {
		// The body is kept decoded: it is replayed as it was meant, with
		// no content encoding it no longer has.
		sentHeaders = withoutHeader(sentHeaders, "Content-Encoding")
	}
	x.Header = headersOf(sentHeaders, strs)
	if x.RespType == "" {
		x.RespType = strs.get(har.Header(e.Response.Headers, "Content-Type"))
	}
	if u, err := url.Parse(e.Request.URL); err == nil {
		x.Path, x.Query, x.host = u.Path, u.RawQuery, strs.get(u.Host)
	}
	if _, key, ok := strings.Cut(x.Header.Get("Authorization"), " "); ok {
		x.Key = strs.get(key)
	}
	if e.Bnpl != nil {
		x.KeyID = strs.get(e.Bnpl.KeyID)
	}
	return x, nil
}

// headersOf is the request's headers a replay uses (replayedHeaders).
// Entries with the same ones (most but those with an Idempotency-Key)
// share one map: a loaded exchange's Header is only read.
func headersOf(list []har.NameValue, strs interner) http.Header {
	h := http.Header{}
	var key strings.Builder
	for _, nv := range list {
		for _, name := range replayedHeaders {
			if strings.EqualFold(nv.Name, name) {
				h[name] = append(h[name], strs.get(nv.Value))
				key.WriteString(name + "\x00" + nv.Value + "\x00")
			}
		}
	}
	if shared, ok := strs.headers[key.String()]; ok {
		return shared
	}
	if len(strs.headers) < 4096 && key.Len() <= 1024 {
		strs.headers[key.String()] = h
	}
	return h
}

// interner holds one copy of each short string that repeats from entry
// to entry (a bound keeps unique ones, such as idempotency keys, from
// filling it).
type interner struct {
	strs    map[string]string
	headers map[string]http.Header
}

func newInterner() interner {
	return interner{strs: map[string]string{}, headers: map[string]http.Header{}}
}

func (in interner) get(s string) string {
	if v, ok := in.strs[s]; ok {
		return v
	}
	if len(in.strs) < 4096 && len(s) <= 256 {
		in.strs[s] = s
	}
	return s
}

// countingReader counts what was read.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// body is a recorded body as sent: a tool that keeps a body with its
// content encoding (base64 gzip, say) has it decoded. One that does not
// decode is kept as it is, and encoded tells so (it is still in the
// Content-Encoding its headers name).
func body(b []byte, headers []har.NameValue) (out []byte, encoded bool) {
	enc := har.Header(headers, "Content-Encoding")
	if enc == "" || strings.EqualFold(enc, "identity") || len(b) == 0 {
		return b, false
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return b, false // a browser keeps the body decoded
	}
	out, cut, err := har.DecodeBody(enc, b, maxAnswer)
	if err != nil || cut {
		return b, true
	}
	return out, false
}

// withoutHeader is headers without those named name.
func withoutHeader(headers []har.NameValue, name string) []har.NameValue {
	out := make([]har.NameValue, 0, len(headers))
	for _, h := range headers {
		if !strings.EqualFold(h.Name, name) {
			out = append(out, h)
		}
	}
	return out
}

// serviceHost is the host whose entries are the service's, and the
// recorded base URL's path: --host, else the recorded target's, else the
// one host the file's /api/ requests went to (several are refused: which
// is the service's cannot be guessed).
func serviceHost(name, target, flag string, all []*Exchange) (string, string, error) {
	basePath := ""
	if u, err := url.Parse(target); err == nil && target != "" {
		basePath = strings.TrimRight(u.Path, "/")
		if flag == "" {
			return u.Host, basePath, nil
		}
	}
	if flag != "" {
		return flag, basePath, nil
	}
	hosts := map[string]bool{}
	var names []string
	for _, x := range all {
		if x.Kind == har.KindExchange && strings.HasPrefix(x.Path, "/api/") && !hosts[x.host] {
			hosts[x.host] = true
			names = append(names, x.host)
		}
	}
	if len(names) > 1 {
		sort.Strings(names)
		return "", "", &har.NotRecordingError{Path: name, Reading: true,
			Why: "its /api/ requests went to several hosts (" + strings.Join(names, ", ") + "): name the service's with --host"}
	}
	if len(names) == 1 {
		return names[0], "", nil
	}
	return "", "", nil
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
