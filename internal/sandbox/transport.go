package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// Transport is an http.RoundTripper that hands requests straight to the
// region's handler, with no socket: the embedded sandbox of the CLI. The
// request appears to come from 127.0.0.1, so the loopback-only control
// endpoints accept it.
func (s *Sandbox) Transport(region string) http.RoundTripper {
	return &inProcessTransport{handler: s.Handler(region), statePath: s.statePath}
}

type inProcessTransport struct {
	handler   http.Handler
	statePath string
}

func (t *inProcessTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	inner, err := innerRequest(req)
	if err != nil {
		return nil, err
	}
	rec, err := t.serve(inner)
	if err != nil {
		return nil, err
	}
	return answer(req, rec), nil
}

// innerRequest is the request as the handler gets it: its own copy of the
// body (the handler may read it after RoundTrip's caller gave up; a
// RoundTripper must also close the request body), from 127.0.0.1, with
// what a server would fill in.
func innerRequest(req *http.Request) (*http.Request, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	inner := req.Clone(req.Context())
	inner.Body = io.NopCloser(bytes.NewReader(body))
	inner.ContentLength = int64(len(body))
	inner.RemoteAddr = "127.0.0.1:0"
	inner.RequestURI = req.URL.RequestURI()
	if inner.Host == "" {
		inner.Host = req.URL.Host
	}
	if inner.Proto == "" {
		inner.Proto, inner.ProtoMajor, inner.ProtoMinor = "HTTP/1.1", 1, 1
	}
	return inner, nil
}

// serve runs the handler on inner and answers what it recorded, or the
// error a client of a socket would see: the context's, an unexpected EOF
// for a dropped connection, or the state's failure.
func (t *inProcessTransport) serve(inner *http.Request) (*edge.Recorder, error) {
	ctx := inner.Context()
	rec := edge.NewRecorder()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		t.handler.ServeHTTP(rec, inner)
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case p := <-done:
		if p == http.ErrAbortHandler {
			// The handler dropped the connection on purpose (the
			// drop-after fault): the client sees what a socket would give.
			return nil, io.ErrUnexpectedEOF
		}
		if p != nil {
			return nil, fmt.Errorf("sandbox handler panicked: %v", p)
		}
	}
	if rec.Failure != nil {
		// The state file failed under the request (read-only, full,
		// damaged): the command says so with its own exit code and hint,
		// not as a server error to retry.
		if se := store.StorageFailure(t.statePath, rec.Failure); se != nil {
			return nil, se
		}
	}
	return rec, nil
}

// answer is the response to req of what the handler recorded.
func answer(req *http.Request, rec *edge.Recorder) *http.Response {
	status := rec.Status
	if status == 0 {
		status = http.StatusOK
	}
	body := rec.Body.Bytes()
	resp := &http.Response{
		Status:        strconv.Itoa(status) + " " + http.StatusText(status),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rec.Sent,
		ContentLength: int64(len(body)),
		Request:       req,
	}
	if resp.Header == nil {
		resp.Header = rec.Header().Clone()
	}
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	if req.Method == http.MethodHead {
		resp.Body = http.NoBody
	} else {
		resp.Body = &ctxBody{ReadCloser: io.NopCloser(bytes.NewReader(body)), req: req}
	}
	return resp
}

// ctxBody stops reading once the request's context is done, as a body read
// from a network connection would.
type ctxBody struct {
	io.ReadCloser
	req *http.Request
}

func (b *ctxBody) Read(p []byte) (int, error) {
	if err := b.req.Context().Err(); err != nil {
		return 0, err
	}
	return b.ReadCloser.Read(p)
}
