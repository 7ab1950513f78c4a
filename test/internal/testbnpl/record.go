package testbnpl

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/har"
	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// RecordDirEnv names a folder: a bnpl run with it set records each
// exchange it has with the service, through the recording proxy's own
// code (har.Recorder, as bnpl sandbox record), in RecordDirEnv/NAME@HOST.har,
// NAME being RecordNameEnv's value and HOST the service's host and port:
// one recording per service a script talks to, which several bnpl of the
// script add to at once under the file's lock.
const (
	RecordDirEnv  = "TEST_RECORD_DIR"
	RecordNameEnv = "TEST_RECORD_NAME"
)

// recordFromEnv makes every API client of this bnpl record, when
// RecordDirEnv is set.
func recordFromEnv() {
	dir := os.Getenv(RecordDirEnv)
	if dir == "" {
		return
	}
	name := os.Getenv(RecordNameEnv)
	if listening(os.Args[1:]) {
		// listen adds the notifications it accepts to a recording of its
		// own; the test puts each with the exchanges of its payment.
		os.Args = append(os.Args, "--record", NotificationsFile(dir, name))
	}
	cmdutil.WrapTransport = func(rt http.RoundTripper, t *config.Target) http.RoundTripper {
		return newRecordingTransport(dir, name, rt, t)
	}
}

// NotificationsFile is where the notifications listen accepted in a
// script are recorded.
func NotificationsFile(dir, name string) string {
	return filepath.Join(dir, name+".notifications")
}

// listening tells a bnpl listen that records nowhere yet.
func listening(args []string) bool {
	verb := ""
	for _, a := range args {
		if a == "--record" || strings.HasPrefix(a, "--record=") || a == "-h" || a == "--help" || a == "--" {
			return false
		}
		if verb == "" && !strings.HasPrefix(a, "-") {
			verb = a
		}
	}
	return verb == "listen"
}

// RecordingFile is where a script's exchanges with host are recorded.
func RecordingFile(dir, name, host string) string {
	return filepath.Join(dir, name+"@"+strings.NewReplacer(":", "_", "/", "_").Replace(host)+".har")
}

// recordingTransport hands each request to a har.Recorder, as the app's
// request reaches sandbox record's proxy, and the recorder's answer back
// to the client. A request the service could not be reached for fails
// for the client as it would have without the recorder (the proxy would
// answer 502).
type recordingTransport struct {
	inner  http.RoundTripper
	dir    string
	name   string
	target *config.Target

	mu      sync.Mutex
	writers map[string]*har.Writer
}

func newRecordingTransport(dir, name string, inner http.RoundTripper, t *config.Target) *recordingTransport {
	if inner == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		if u, err := url.Parse(t.BaseURL); err == nil && u.Scheme == "http" && !netguard.LoopbackLiteral(u.Hostname()) {
			tr.DialContext = netguard.DialLoopback(&net.Dialer{Timeout: 30 * time.Second})
		}
		inner = tr
	}
	return &recordingTransport{inner: inner, dir: dir, name: name, target: t, writers: map[string]*har.Writer{}}
}

func (rt *recordingTransport) writer(host string) (*har.Writer, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if w := rt.writers[host]; w != nil {
		return w, nil
	}
	meta := har.LogMeta{Region: rt.target.Region, Target: secret.RedactURL(rt.target.BaseURL)}
	if u, err := url.Parse(rt.target.BaseURL); err != nil || u.Host != host {
		meta = har.LogMeta{}
	}
	w, err := har.OpenWriter(RecordingFile(rt.dir, rt.name, host), meta, "test", 0)
	if err != nil {
		return nil, err
	}
	rt.writers[host] = w
	return w, nil
}

// failed remembers the error of the one round trip of a request, and
// sends it with the Host the app gave it.
type failed struct {
	inner http.RoundTripper
	host  string
	err   error
}

func (f *failed) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.host != "" {
		r.Host = f.host
	}
	resp, err := f.inner.RoundTrip(r)
	f.err = err
	return resp, err
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasPrefix(r.URL.Path, "/_sandbox/") {
		// A sandbox's own paths, which sandbox record forwards
		// unrecorded: the recording's head (its region, its target) is
		// that of the first bnpl to talk to the service.
		return rt.inner.RoundTrip(r)
	}
	w, err := rt.writer(r.URL.Host)
	if err != nil {
		return nil, err
	}
	trip := &failed{inner: rt.inner, host: r.Host}
	rec := &har.Recorder{Upstream: &url.URL{Scheme: r.URL.Scheme, Host: r.URL.Host}, Transport: trip, Writer: w,
		Scrubber: har.NewScrubber(nil, rt.target.SecretKey),
	}
	in := r.Clone(r.Context())
	in.RequestURI = r.URL.RequestURI()
	if in.Body == nil {
		in.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	rw := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() {
		rec.ServeHTTP(rw, in)
		rw.WriteHeader(http.StatusOK)
		pw.Close()
	}()
	<-rw.ready
	if trip.err != nil {
		pr.Close()
		return nil, trip.err
	}
	return &http.Response{Status: http.StatusText(rw.status), StatusCode: rw.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: rw.sent, Body: pr, ContentLength: -1, Request: r}, nil
}

// pipeWriter is the recorder's ResponseWriter: the answer's head is
// handed over once written, its body streams through a pipe.
type pipeWriter struct {
	header http.Header
	sent   http.Header
	status int
	pw     *io.PipeWriter
	ready  chan struct{}
	once   sync.Once
}

func (p *pipeWriter) Header() http.Header { return p.header }

func (p *pipeWriter) WriteHeader(status int) {
	p.once.Do(func() {
		p.status, p.sent = status, p.header.Clone()
		close(p.ready)
	})
}

func (p *pipeWriter) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return p.pw.Write(b)
}

// Flush lets a streamed answer through as it comes.
func (p *pipeWriter) Flush() {}
