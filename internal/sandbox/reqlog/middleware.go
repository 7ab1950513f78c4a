package reqlog

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
)

// capture keeps at most max bytes of what passes through it.
type capture struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (c *capture) keep(p []byte) {
	if c.buf.Cap() == 0 {
		c.buf.Grow(min(len(p)+64, c.max))
	}
	room := c.max - c.buf.Len()
	if room <= 0 {
		if len(p) > 0 {
			c.cut = true
		}
		return
	}
	if len(p) > room {
		p, c.cut = p[:room], true
	}
	c.buf.Write(p)
}

type teeBody struct {
	io.ReadCloser
	c *capture
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.c.keep(p[:n])
	return n, err
}

type logWriter struct {
	http.ResponseWriter
	status int
	c      capture
}

func (w *logWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *logWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.c.keep(p)
	return w.ResponseWriter.Write(p)
}

func (w *logWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func Middleware(l *Log, region string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l == nil || !strings.HasPrefix(r.URL.Path, "/api/") {
			h.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		var reqCap *capture
		if r.Body != nil && r.Body != http.NoBody {
			reqCap = &capture{max: MaxLoggedBody}
			r.Body = &teeBody{ReadCloser: r.Body, c: reqCap}
		}
		p := pendingPool.Get().(*PendingEntry)
		lw := &p.lw
		lw.ResponseWriter = w
		ctx, fault := edge.WithFaultNote(r.Context())
		r = r.WithContext(ctx)
		// A dropped connection ends the handler with a panic (where there
		// is no connection to hijack): it is logged all the same.
		defer func() {
			if v := recover(); v != nil {
				if fault.Kind != "" {
					l.Add(l.pending(p, r, region, start, reqCap, fault))
				}
				panic(v)
			}
		}()
		h.ServeHTTP(lw, r)
		l.Add(l.pending(p, r, region, start, reqCap, fault))
	})
}

// pending is what the handler saw of one exchange, to be logged.
func (l *Log) pending(p *PendingEntry, r *http.Request, region string, start time.Time, reqCap *capture, fault *edge.FaultNote) *PendingEntry {
	lw := &p.lw
	lw.ResponseWriter = nil // the answer is written
	p.At, p.Region, p.Method, p.Path = start.UTC(), region, r.Method, r.URL.RequestURI()
	p.Status, p.latency, p.RespBody, p.respCut = lw.status, time.Since(start), lw.c.buf.Bytes(), lw.c.cut
	p.fault = *fault
	if p.Status == 0 && fault.Kind == "" {
		p.Status = http.StatusOK
	}
	if reqCap != nil {
		p.reqBody, p.reqCut = reqCap.buf.Bytes(), reqCap.cut
	}
	if scheme, key, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " "); ok && strings.EqualFold(scheme, "Bearer") {
		p.Key = strings.TrimSpace(key)
	}
	return p
}
