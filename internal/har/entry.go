package har

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Exchange is one request and its answer as a recorder saw them, before
// anything is masked: the bodies are what it kept of them (at most its
// bound), the sizes what went through.
type Exchange struct {
	Kind     string // KindExchange or KindNotification
	Started  time.Time
	Duration time.Duration

	Method, URL string
	Proto       string
	ReqHeader   http.Header
	ReqBody     []byte
	ReqSize     int64
	ReqCut      bool // ReqBody holds only the start of the body

	Status     int
	RespHeader http.Header
	RespBody   []byte
	RespSize   int64
	RespCut    bool

	// MaxBody bounds each body as the file keeps it once decoded
	// (DefaultMaxBody when 0).
	MaxBody int64
}

// Entry turns an exchange into a HAR entry, through the scrubber: keys,
// header values and (when it redacts) buyer data never reach the entry
// unmasked.
func (s *Scrubber) Entry(x Exchange) Entry {
	// Headers first: the credentials and header values they hold are
	// learnt before the bodies, which may echo them, are masked.
	reqHeaders, respHeaders := s.Headers(x.ReqHeader), s.Headers(x.RespHeader)
	req := s.side(x.ReqHeader, x.ReqBody, x.ReqCut, x.MaxBody)
	resp := s.side(x.RespHeader, x.RespBody, x.RespCut, x.MaxBody)
	proto := x.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	ms := float64(x.Duration.Microseconds()) / 1000
	e := Entry{
		StartedDateTime: x.Started.UTC().Format(TimeLayout),
		Time:            ms,
		Request: Request{
			Method:      x.Method,
			URL:         s.URL(x.URL),
			HTTPVersion: proto,
			Cookies:     []NameValue{},
			Headers:     reqHeaders,
			QueryString: s.query(x.URL),
			HeadersSize: -1,
			BodySize:    int(x.ReqSize),
		},
		Response: Response{
			Status:      x.Status,
			StatusText:  http.StatusText(x.Status),
			HTTPVersion: proto,
			Cookies:     []NameValue{},
			Headers:     respHeaders,
			Content:     Content{Size: int(x.RespSize), MimeType: x.RespHeader.Get("Content-Type")},
			HeadersSize: -1,
			BodySize:    int(x.RespSize),
		},
		Timings: Timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Wait: ms},
		Bnpl:    &EntryMeta{Kind: x.Kind},
	}
	if words := strings.Fields(x.ReqHeader.Get("Authorization")); len(words) == 2 {
		e.Bnpl.KeyID = KeyID(words[1])
	}
	if e.Bnpl.Kind == "" {
		e.Bnpl.Kind = KindExchange
	}
	if x.ReqSize > 0 || len(req.body) > 0 {
		text, enc := encodeText(req.body)
		e.Request.PostData = &PostData{MimeType: x.ReqHeader.Get("Content-Type"), Text: text, Encoding: enc}
	}
	if len(resp.body) > 0 {
		e.Response.Content.Text, e.Response.Content.Encoding = encodeText(resp.body)
	}
	e.Bnpl.note(req, "request")
	e.Bnpl.note(resp, "response")
	var notes []string
	if len(e.Bnpl.Truncated) > 0 {
		notes = append(notes, "bodies over the recording's bound are kept in part: "+strings.Join(e.Bnpl.Truncated, ", "))
	}
	if len(e.Bnpl.Withheld) > 0 {
		notes = append(notes, "bodies whose content encoding could not be decoded are withheld: "+strings.Join(e.Bnpl.Withheld, ", "))
	}
	e.Comment = strings.Join(notes, "; ")
	return e
}

// kept is one body as the file keeps it.
type kept struct {
	body     []byte
	cut      bool // only its start is kept
	withheld bool // its encoding could not be undone: nothing of it is kept
}

// side is a body fit for the file: decoded from its content encodings
// (cut when only its start was kept or it decodes past the bound), then
// masked by Body. A body that cannot be decoded is withheld, with why:
// encoded bytes cannot be masked.
func (s *Scrubber) side(h http.Header, b []byte, cut bool, limit int64) kept {
	if enc := Encodings(h); enc != "" && len(b) > 0 {
		out, decCut, err := DecodeBody(enc, b, limit)
		if err != nil {
			return kept{body: []byte("(withheld: " + err.Error() + ", and an encoded body cannot be masked)"), withheld: true}
		}
		b, cut = out, cut || decCut
	}
	return kept{body: s.Body(b, cut), cut: cut}
}

func (m *EntryMeta) note(k kept, side string) {
	if k.cut {
		m.Truncated = append(m.Truncated, side)
	}
	if k.withheld {
		m.Withheld = append(m.Withheld, side)
	}
}

// query lists a URL's query parameters, masked, in a stable order.
func (s *Scrubber) query(raw string) []NameValue {
	out := []NameValue{}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	q := u.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[k] {
			out = append(out, NameValue{Name: k, Value: s.text(v)})
		}
	}
	return out
}

// KeyID tells a key from others masked alike, and says nothing of a key
// drawn at random: the start of a SHA-256 of it.
func KeyID(key string) string {
	sum := sha256.Sum256([]byte("bnpl key id\x00" + key))
	return hex.EncodeToString(sum[:6])
}
