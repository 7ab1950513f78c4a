package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// The request log: every request answered on the service's paths (/api/),
// as `stripe logs tail` shows a developer what their integration sent. The
// handler only copies what it saw (at most maxLoggedBody of each body) onto
// a bounded queue; one writer goroutine masks the secrets and inserts the
// entries in batches, and keeps the table to its last maxLogEntries rows.
// Nothing secret is stored: the key is kept masked, webhook header values
// are masked in the bodies, and any key, known or shaped like one, is
// masked wherever it appears (internal/secret's Masker).

const (
	maxLoggedBody  = 64 << 10
	maxLogEntries  = 10000
	logQueueSize   = 8192
	logBatchSize   = 512
	logTrimEvery   = 1024 // rows written between two trims of the table
	logGather      = 50 * time.Millisecond
	logWriteTimout = 10 * time.Second
)

const migrationRequestLog = `
	CREATE TABLE request_log (
		seq           INTEGER PRIMARY KEY AUTOINCREMENT,
		at            INTEGER NOT NULL,
		region        TEXT NOT NULL,
		merchant_code TEXT NOT NULL,
		mode          TEXT NOT NULL,
		key           TEXT NOT NULL,
		method        TEXT NOT NULL,
		path          TEXT NOT NULL,
		status        INTEGER NOT NULL,
		error_type    TEXT NOT NULL,
		error         TEXT NOT NULL,
		latency_ns    INTEGER NOT NULL,
		request_body  TEXT NOT NULL,
		response_body TEXT NOT NULL,
		truncated     INTEGER NOT NULL
	);
	CREATE TABLE request_log_bodies (
		hash TEXT PRIMARY KEY,
		body BLOB NOT NULL
	);`

// LogEntry is one request the sandbox answered. Key is the secret key
// masked ("sk_test_****ndbx"); the bodies are masked and cut at 64 KiB
// (Truncated says so); a body that is not text is described, not kept.
type LogEntry struct {
	Seq          int64     `json:"seq"`
	At           time.Time `json:"at"`
	Region       string    `json:"region"`
	MerchantCode string    `json:"merchant_code,omitempty"`
	Mode         string    `json:"mode,omitempty"` // test or live; "" when the key was not one of the sandbox's
	Key          string    `json:"key,omitempty"`
	Method       string    `json:"method"`
	Path         string    `json:"path"` // with the query
	Status       int       `json:"status"`
	ErrorType    string    `json:"error_type,omitempty"`
	Error        string    `json:"error,omitempty"`
	LatencyMS    float64   `json:"latency_ms"`
	RequestBody  string    `json:"request_body,omitempty"`
	ResponseBody string    `json:"response_body,omitempty"`
	Truncated    bool      `json:"truncated,omitempty"`
}

// LogFilter selects entries. Status is a code ("404") or a class ("4xx",
// "5xx"); Path is a glob matched against the path without its query (*
// stops at /; a pattern without * matches as a prefix); Since drops
// older entries; After (a Seq) answers the entries after it, oldest first.
type LogFilter struct {
	Status  string
	Path    string
	Since   time.Time
	After   int64
	Forward bool // set: the entries after After, oldest first
	Limit   int  // default 100, at most 1000
}

// pendingEntry is what the handler hands the writer, unmasked.
type pendingEntry struct {
	at       time.Time
	region   string
	key      string
	method   string
	path     string
	status   int
	latency  time.Duration
	reqBody  []byte
	respBody []byte
	reqCut   bool
	respCut  bool
}

type requestLog struct {
	s       *Sandbox
	masker  *secret.Masker
	queue   chan *pendingEntry
	flushes chan chan struct{}
	dropped atomic.Int64
	done    chan struct{}
	stopped chan struct{}
	once    sync.Once
	written int
}

func init() {
	// Appended after faults.go's: the log is outermost, so that it records
	// what the rate limit and the injected faults answered.
	middlewares = append(middlewares, requestLogMiddleware)
}

func startRequestLog(s *Sandbox) *requestLog {
	keys := make([]string, 0, len(s.keys))
	for k := range s.keys {
		keys = append(keys, k)
	}
	l := &requestLog{
		s: s, masker: secret.NewMasker(keys...),
		queue:   make(chan *pendingEntry, logQueueSize),
		flushes: make(chan chan struct{}),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go l.run()
	return l
}

// stop writes what is queued and ends the writer.
func (l *requestLog) stop() {
	if l == nil {
		return
	}
	l.once.Do(func() { close(l.done) })
	<-l.stopped
}

// flush returns once every entry queued before the call is in the table,
// so that a reader of the log sees its own process's requests.
func (l *requestLog) flush(ctx context.Context) {
	if l == nil {
		return
	}
	ack := make(chan struct{})
	select {
	case l.flushes <- ack:
	case <-l.stopped:
		return
	case <-ctx.Done():
		return
	}
	select {
	case <-ack:
	case <-ctx.Done():
	}
}

func (l *requestLog) add(e *pendingEntry) {
	select {
	case l.queue <- e:
	default:
		l.dropped.Add(1)
	}
}

func (l *requestLog) run() {
	defer close(l.stopped)
	batch := make([]*pendingEntry, 0, logBatchSize)
	drain := func() {
		for len(batch) < logBatchSize {
			select {
			case e := <-l.queue:
				batch = append(batch, e)
			default:
				return
			}
		}
	}
	write := func() {
		for len(batch) > 0 {
			l.write(batch)
			batch = batch[:0]
			drain()
		}
	}
	for {
		select {
		case e := <-l.queue:
			// Gather for a moment before writing: one transaction per
			// batch rather than per request is most of the throughput.
			batch = append(batch, e)
			gather := time.NewTimer(logGather)
		collect:
			for len(batch) < logBatchSize {
				select {
				case e := <-l.queue:
					batch = append(batch, e)
				case <-gather.C:
					break collect
				case ack := <-l.flushes:
					drain()
					write()
					close(ack)
				case <-l.done:
					break collect
				}
			}
			gather.Stop()
			write()
		case ack := <-l.flushes:
			drain()
			write()
			close(ack)
		case <-l.done:
			drain()
			write()
			return
		}
	}
}

// write stores a batch in one transaction. A body is stored once, by its
// hash, however many requests answered it (a client polling a payment
// reads the same body over and over): request_body and response_body hold
// hashes of request_log_bodies rows, "" for none.
func (l *requestLog) write(batch []*pendingEntry) {
	ctx, cancel := context.WithTimeout(context.Background(), logWriteTimout)
	defer cancel()
	tx, err := l.s.db.BeginTx(ctx, nil)
	if err != nil {
		return
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO request_log (at, region, merchant_code, mode, key, method, path, status,
		error_type, error, latency_ns, request_body, response_body, truncated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return
	}
	defer stmt.Close()
	bodies, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO request_log_bodies (hash, body) VALUES (?, ?)`)
	if err != nil {
		return
	}
	defer bodies.Close()
	stored := map[string]bool{}
	store := func(body string) (string, error) {
		if body == "" {
			return "", nil
		}
		sum := sha256.Sum256([]byte(body))
		h := hex.EncodeToString(sum[:16])
		if stored[h] {
			return h, nil
		}
		stored[h] = true
		_, err := bodies.ExecContext(ctx, h, []byte(body))
		return h, err
	}
	for _, p := range batch {
		e := l.prepare(p)
		reqHash, err := store(e.RequestBody)
		if err != nil {
			return
		}
		respHash, err := store(e.ResponseBody)
		if err != nil {
			return
		}
		if _, err := stmt.ExecContext(ctx, e.At.UnixNano(), e.Region, e.MerchantCode, e.Mode, e.Key, e.Method, e.Path, e.Status,
			e.ErrorType, e.Error, int64(p.latency), reqHash, respHash, e.Truncated); err != nil {
			return
		}
	}
	l.written += len(batch)
	if l.written >= logTrimEvery {
		l.written = 0
		if _, err := tx.ExecContext(ctx, `DELETE FROM request_log WHERE seq <= (SELECT MAX(seq) FROM request_log) - ?`, maxLogEntries); err != nil {
			return
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM request_log_bodies WHERE hash NOT IN (SELECT request_body FROM request_log)
			AND hash NOT IN (SELECT response_body FROM request_log)`); err != nil {
			return
		}
	}
	_ = tx.Commit()
}

// prepare turns what the handler saw into the entry as stored: the key
// masked, the merchant and mode told by the key, the error read from the
// answer, the bodies masked.
func (l *requestLog) prepare(p *pendingEntry) LogEntry {
	e := LogEntry{At: p.at, Region: p.region, Method: p.method, Path: l.masker.String(p.path), Status: p.status,
		Truncated: p.reqCut || p.respCut}
	if p.key != "" {
		e.Key = secret.MaskKey(p.key)
		if info, ok := l.s.keys[p.key]; ok {
			e.MerchantCode = info.merchant.Code
			e.Mode = "live"
			if info.isTest {
				e.Mode = "test"
			}
		}
	}
	if p.status >= 400 {
		var body struct {
			ErrorType string       `json:"errorType"`
			Error     string       `json:"error"`
			Errors    []fieldError `json:"errors"`
		}
		if json.Unmarshal(p.respBody, &body) == nil {
			e.ErrorType, e.Error = body.ErrorType, body.Error
			if e.Error == "" && len(body.Errors) > 0 {
				e.Error = body.Errors[0].Field + ": " + body.Errors[0].Message
			}
		}
		if e.Error == "" && e.ErrorType == "" {
			e.Error = strings.TrimSpace(string(p.respBody)) // the router's plain 404
		}
		e.Error = l.masker.String(e.Error)
	}
	e.RequestBody = l.maskBody(p.reqBody)
	e.ResponseBody = l.maskBody(p.respBody)
	return e
}

// maskBody answers a body fit to store: header values masked by their
// place in a webhook body, then every known key and anything shaped like
// a key or URL credentials. A body that is not UTF-8 text is described.
func (l *requestLog) maskBody(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if !utf8.Valid(b) {
		return "(binary body, " + strconv.Itoa(len(b)) + " bytes kept of it)"
	}
	b = maskHeaderValues(b)
	if mayHoldSecret(b) {
		b = l.masker.Bytes(b)
	}
	return string(b)
}

// mayHoldSecret tells whether the Masker could change b. It decodes JSON,
// which would be most of the log's cost: a body with no key prefix, no
// escape that could spell one, and no URL with credentials is stored as it
// is. Every key the sandbox knows starts with sk_; an escaped form of it
// holds a backslash.
func mayHoldSecret(b []byte) bool {
	return bytes.Contains(b, []byte("sk_")) || bytes.IndexByte(b, '\\') >= 0 ||
		bytes.Contains(b, []byte("://")) && bytes.IndexByte(b, '@') >= 0
}

// maskHeaderValues masks "header": {"value": ...} wherever it appears in a
// JSON document: a webhook's signing header as registered or answered.
func maskHeaderValues(b []byte) []byte {
	if !bytes.Contains(b, []byte(`"header"`)) && !bytes.Contains(b, []byte(`\u`)) {
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return b
	}
	var values []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, child := range t {
				if h, ok := child.(map[string]any); ok && strings.EqualFold(k, "header") {
					if s, ok := h["value"].(string); ok {
						values = append(values, s)
						h["value"] = secret.MaskValue(s)
					}
				}
				walk(child)
			}
		case []any:
			for _, child := range t {
				walk(child)
			}
		}
	}
	walk(doc)
	if len(values) == 0 {
		return b
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if enc.Encode(doc) != nil {
		return []byte("(body withheld: it holds a header value that could not be masked)")
	}
	// The value may appear elsewhere in the body too.
	return secret.NewMasker(values...).Bytes(bytes.TrimRight(out.Bytes(), "\n"))
}

// capture keeps at most max bytes of what passes through it.
type capture struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (c *capture) keep(p []byte) {
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

func requestLogMiddleware(s *Sandbox, region string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l := s.reqlog
		if l == nil || !strings.HasPrefix(r.URL.Path, "/api/") {
			h.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		var reqCap *capture
		if r.Body != nil && r.Body != http.NoBody {
			reqCap = &capture{max: maxLoggedBody}
			r.Body = &teeBody{ReadCloser: r.Body, c: reqCap}
		}
		lw := &logWriter{ResponseWriter: w, c: capture{max: maxLoggedBody}}
		h.ServeHTTP(lw, r)
		p := &pendingEntry{at: start.UTC(), region: region, method: r.Method, path: r.URL.RequestURI(),
			status: lw.status, latency: time.Since(start), respBody: lw.c.buf.Bytes(), respCut: lw.c.cut}
		if p.status == 0 {
			p.status = http.StatusOK
		}
		if reqCap != nil {
			p.reqBody, p.reqCut = reqCap.buf.Bytes(), reqCap.cut
		}
		if scheme, key, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " "); ok && strings.EqualFold(scheme, "Bearer") {
			p.key = strings.TrimSpace(key)
		}
		l.add(p)
	})
}

// RequestLog lists logged requests: the latest Limit, newest first; or,
// with After, the next Limit after that cursor, oldest first. Entries
// still queued by this process are written first.
func (s *Sandbox) RequestLog(ctx context.Context, f LogFilter) ([]LogEntry, error) {
	s.reqlog.flush(ctx)
	if f.Limit <= 0 {
		f.Limit = 100
	}
	f.Limit = min(f.Limit, 1000)
	conds, args := []string{"1 = 1"}, []any{}
	switch st := strings.ToLower(f.Status); {
	case st == "":
	case len(st) == 3 && st[1:] == "xx" && st[0] >= '1' && st[0] <= '5':
		lo := int(st[0]-'0') * 100
		conds, args = append(conds, "status >= ? AND status < ?"), append(args, lo, lo+100)
	default:
		n := 0
		for _, c := range st {
			if c < '0' || c > '9' {
				return nil, badData("status must be a code such as 404 or a class such as 4xx")
			}
			n = n*10 + int(c-'0')
		}
		if n < 100 || n > 599 {
			return nil, badData("status must be a code such as 404 or a class such as 4xx")
		}
		conds, args = append(conds, "status = ?"), append(args, n)
	}
	if f.Path != "" {
		if _, err := path.Match(f.Path, "/"); err != nil {
			return nil, badData("path is not a valid glob: " + err.Error())
		}
	}
	if !f.Since.IsZero() {
		conds, args = append(conds, "at >= ?"), append(args, f.Since.UnixNano())
	}
	order := "DESC"
	if f.Forward || f.After > 0 {
		conds, args, order = append(conds, "seq > ?"), append(args, f.After), "ASC"
	}
	query := `SELECT seq, at, region, merchant_code, mode, key, method, path, status, error_type, error, latency_ns,
		COALESCE((SELECT body FROM request_log_bodies WHERE hash = request_body), ''),
		COALESCE((SELECT body FROM request_log_bodies WHERE hash = response_body), ''),
		truncated FROM request_log WHERE ` + strings.Join(conds, " AND ") + ` ORDER BY seq ` + order
	if f.Path == "" {
		query += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []LogEntry{}
	for rows.Next() && len(out) < f.Limit {
		var e LogEntry
		var at, latency int64
		var req, resp []byte
		if err := rows.Scan(&e.Seq, &at, &e.Region, &e.MerchantCode, &e.Mode, &e.Key, &e.Method, &e.Path, &e.Status,
			&e.ErrorType, &e.Error, &latency, &req, &resp, &e.Truncated); err != nil {
			return nil, err
		}
		if f.Path != "" && !pathMatches(f.Path, e.Path) {
			continue
		}
		e.At = time.Unix(0, at).UTC()
		e.LatencyMS = float64(latency/1000) / 1000
		e.RequestBody, e.ResponseBody = string(req), string(resp)
		out = append(out, e)
	}
	return out, rows.Err()
}

// pathMatches matches a logged path (query dropped) against a glob; a
// glob without a wildcard matches as a prefix, so /api/v2/payments finds
// every payment path.
func pathMatches(glob, logged string) bool {
	p, _, _ := strings.Cut(logged, "?")
	if !strings.ContainsAny(glob, "*?[") {
		return strings.HasPrefix(p, glob)
	}
	ok, _ := path.Match(glob, p)
	return ok
}

// RequestLogDropped is how many requests this process could not log
// because its queue was full.
func (s *Sandbox) RequestLogDropped() int64 {
	if s.reqlog == nil {
		return 0
	}
	return s.reqlog.dropped.Load()
}
