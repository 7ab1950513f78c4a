package har

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DefaultMaxBody bounds what a recording keeps of each body unless told
// otherwise: the service takes at most 1 MiB in a request and an
// attachment of 5 MiB, which is kept in part.
const DefaultMaxBody = 1 << 20

// Recorder is a forwarding proxy that records: every request is sent on to
// Upstream as it came (its path below the upstream's base), its answer is
// handed back unchanged, headers, status and body, and the exchange is
// written to Writer through Scrubber. Bodies stream through; only the
// first MaxBody bytes of each are kept for the file. It is safe for
// concurrent use.
type Recorder struct {
	Upstream  *url.URL
	Transport http.RoundTripper
	Writer    *Writer
	Scrubber  *Scrubber
	MaxBody   int64
	// Refuse, when set, may refuse a request before it is sent: its
	// answer (status and message) goes to the app, nothing is recorded.
	Refuse func(r *http.Request) (status int, body string, refused bool)
	// Record tells which paths are written to the file; nil records all.
	// Others are forwarded all the same.
	Record func(path string) bool
	// OnWriteError hears an entry that could not be written (ErrFull
	// among them).
	OnWriteError func(error)
	Now          func() time.Time

	once sync.Once
}

// hopHeaders belong to one connection and are not forwarded.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func (rc *Recorder) now() time.Time {
	if rc.Now != nil {
		return rc.Now()
	}
	return time.Now()
}

func (rc *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rc.Refuse != nil {
		if status, body, refused := rc.Refuse(r); refused {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
	}
	started := rc.now()
	reqBody := &capture{limit: rc.maxBody()}
	out, err := rc.outbound(r, reqBody)
	if err != nil {
		http.Error(w, "bnpl sandbox record: "+err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := rc.Transport.RoundTrip(out)
	x := Exchange{Kind: KindExchange, Started: started, Method: r.Method, URL: out.URL.String(), Proto: r.Proto,
		ReqHeader: r.Header.Clone(), MaxBody: rc.maxBody()}
	if err != nil {
		// The app sees what a gateway answers when the server cannot be
		// reached; the file keeps the request with no answer (status 0).
		msg := "bnpl sandbox record: no answer from " + rc.Upstream.Host + ": " + errText(err)
		http.Error(w, msg, http.StatusBadGateway)
		x.Duration, x.RespHeader = rc.now().Sub(started), http.Header{}
		x.ReqBody, x.ReqSize, x.ReqCut = reqBody.kept(), reqBody.size, reqBody.cut
		rc.write(x)
		return
	}
	defer resp.Body.Close()
	h := w.Header()
	for k, v := range resp.Header {
		h[k] = v
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	w.WriteHeader(resp.StatusCode)
	respBody := &capture{limit: rc.maxBody()}
	_, copyErr := io.Copy(w, io.TeeReader(resp.Body, respBody))
	x.Duration = rc.now().Sub(started)
	x.ReqBody, x.ReqSize, x.ReqCut = reqBody.kept(), reqBody.size, reqBody.cut
	x.Status, x.RespHeader = resp.StatusCode, resp.Header.Clone()
	x.RespBody, x.RespSize, x.RespCut = respBody.kept(), respBody.size, respBody.cut || copyErr != nil
	rc.write(x)
}

func (rc *Recorder) maxBody() int64 {
	if rc.MaxBody <= 0 {
		return DefaultMaxBody
	}
	return rc.MaxBody
}

// outbound is r as it goes to the upstream: the same method, path (below
// the upstream's base path), query, headers and body.
func (rc *Recorder) outbound(r *http.Request, body *capture) (*http.Request, error) {
	u := *rc.Upstream
	u.Path = strings.TrimRight(rc.Upstream.Path, "/") + r.URL.Path
	u.RawPath = ""
	if r.URL.RawPath != "" {
		u.RawPath = strings.TrimRight(rc.Upstream.EscapedPath(), "/") + r.URL.RawPath
	}
	u.RawQuery = r.URL.RawQuery
	var in io.Reader = http.NoBody
	if r.Body != nil && r.Body != http.NoBody {
		in = io.TeeReader(r.Body, body)
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), in)
	if err != nil {
		return nil, err
	}
	out.Header = r.Header.Clone()
	for _, k := range hopHeaders {
		out.Header.Del(k)
	}
	out.ContentLength = r.ContentLength
	if in == http.NoBody {
		out.Body, out.ContentLength = http.NoBody, 0
	}
	return out, nil
}

func (rc *Recorder) write(x Exchange) {
	path := x.URL
	if u, err := url.Parse(x.URL); err == nil {
		path = strings.TrimPrefix(u.Path, strings.TrimRight(rc.Upstream.Path, "/"))
	}
	if rc.Record != nil && !rc.Record(path) {
		return
	}
	if err := rc.Writer.Append(rc.Scrubber.Entry(x)); err != nil && rc.OnWriteError != nil {
		if errors.Is(err, ErrFull) {
			rc.once.Do(func() { rc.OnWriteError(err) })
			return
		}
		rc.OnWriteError(err)
	}
}

// capture keeps the first limit bytes written to it and counts them all.
type capture struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int64
	size  int64
	cut   bool
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.size += int64(len(p))
	if room := c.limit - int64(c.buf.Len()); room > 0 {
		if int64(len(p)) > room {
			c.buf.Write(p[:room])
			c.cut = true
		} else {
			c.buf.Write(p)
		}
	} else if len(p) > 0 {
		c.cut = true
	}
	return len(p), nil
}

func (c *capture) kept() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.buf.Bytes()...)
}

func errText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Sprint(ue.Err)
	}
	return err.Error()
}
