package reqlog

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/pierrec/lz4/v4"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
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
	MaxLoggedBody  = 64 << 10
	MaxLogEntries  = 10000
	logQueueSize   = 8192
	LogBatchSize   = 2048
	LogTrimEvery   = 1024 // rows written between two trims of the table
	logGather      = 100 * time.Millisecond
	logWriteTimout = 10 * time.Second
)

// yieldEvery is how many entries the writer prepares between two
// chances it gives the requests to run.
const yieldEvery = 64

// ChunkSpan bounds the entries of a chunk (logBatchSize is less).
const ChunkSpan = 4096

// storedEntry is an entry as a chunk holds it: its bodies by their place
// among the texts its chunk stored (request_log_texts, from the chunk's
// texts_from on), or, in a chunk written before those, by hash
// (request_log_bodies).
type storedEntry struct {
	LogEntry
	RequestHash  string `json:"rq,omitempty"`
	ResponseHash string `json:"rs,omitempty"`
	RequestText  int    `json:"rqt,omitempty"` // from 1; 0 for none
	ResponseText int    `json:"rst,omitempty"`
	// textsFrom is the id of its chunk's first text, set when read.
	textsFrom int64
}

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
	// Fault names the fault serve --faults injected into the request
	// (500-before, 500-after, drop-after, lock, 429); Committed is, after
	// 500-after or drop-after, the status the request's own handler
	// answered: it ran and its change is in the state. Status is then
	// what the client got, 0 for a dropped connection.
	Fault     string `json:"fault,omitempty"`
	Committed int    `json:"committed_status,omitempty"`
}

// LogFilter selects entries. Status is a code ("404") or a class ("4xx",
// "5xx"); Path is a glob matched against the path without its query (*
// stops at /; a pattern without * matches as a prefix); Since drops
// older entries; After (a Seq) answers the entries after it, oldest first;
// Before (a Seq) the latest ones before it, newest first.
type LogFilter struct {
	Status  string
	Path    string
	Since   time.Time
	After   int64
	Forward bool  // set: the entries after After, oldest first
	Before  int64 // set (> 0): only entries older than this Seq
	Limit   int   // default 100, at most 1000
}

// PendingEntry is what the handler hands the writer, unmasked.
type PendingEntry struct {
	At       time.Time
	Region   string
	Key      string
	Method   string
	Path     string
	Status   int
	latency  time.Duration
	reqBody  []byte
	RespBody []byte
	reqCut   bool
	respCut  bool
	fault    edge.FaultNote
	// lw is the answer's writer in the handler; it keeps what RespBody
	// holds. An entry comes from pendingPool and goes back once written.
	lw logWriter
}

// pendingPool keeps the entries the writer has stored, with the buffer
// that held an answer, for the next requests: a busy sandbox then logs
// without allocating per request.
var pendingPool = sync.Pool{New: func() any { return &PendingEntry{lw: logWriter{c: capture{max: MaxLoggedBody}}} }}

// maxPooledBody bounds the answer buffer an entry keeps for its next use.
const maxPooledBody = 16 << 10

// recycle puts an entry the writer is done with back in pendingPool.
func recycle(p *PendingEntry) {
	buf := p.lw.c.buf
	buf.Reset()
	if buf.Cap() > maxPooledBody {
		buf = bytes.Buffer{}
	}
	*p = PendingEntry{lw: logWriter{c: capture{buf: buf, max: MaxLoggedBody}}}
	pendingPool.Put(p)
}

type Log struct {
	s       *store.State
	masker  *secret.Masker
	queue   chan *PendingEntry
	flushes chan chan struct{}
	dropped atomic.Int64
	done    chan struct{}
	stopped chan struct{}
	once    sync.Once
	written int
	// packer packs the batches' large bodies; only the writer goroutine
	// (prepareBatch) uses it.
	packer lz4.Compressor
}

func Start(s *store.State) *Log {
	keys := make([]string, 0, len(s.Keys))
	for k := range s.Keys {
		keys = append(keys, k)
	}
	l := &Log{
		s: s, masker: secret.NewMasker(keys...),
		queue:   make(chan *PendingEntry, logQueueSize),
		flushes: make(chan chan struct{}),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go l.run()
	return l
}

// NewReader reads the request log of st, which other processes may
// write when this one keeps none.
func NewReader(st *store.State) *Log { return &Log{s: st} }

// Stop writes what is queued and ends the writer.
func (l *Log) Stop() {
	if l == nil {
		return
	}
	l.once.Do(func() { close(l.done) })
	<-l.stopped
}

// Flush returns once every entry queued before the call is in the table,
// so that a reader of the log sees its own process's requests.
func (l *Log) Flush(ctx context.Context) {
	if l == nil || l.flushes == nil { // a reader of a log this process does not write
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

func (l *Log) Add(e *PendingEntry) {
	select {
	case l.queue <- e:
	default:
		l.dropped.Add(1)
		recycle(e)
	}
}

func (l *Log) run() {
	defer close(l.stopped)
	batch := make([]*PendingEntry, 0, LogBatchSize)
	drain := func() {
		for len(batch) < LogBatchSize {
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
			n := txEntries(batch)
			l.write(batch[:n])
			batch = append(batch[:0], batch[n:]...)
			drain()
		}
	}
	flush := func(ack chan struct{}) {
		drain()
		write()
		close(ack)
	}
	for {
		select {
		case e := <-l.queue:
			// Gather for a moment before writing: one transaction per
			// batch rather than per request is most of the throughput.
			batch = append(batch, e)
			// The writer then sleeps rather than take each entry as it
			// comes: a sender that finds no one waiting wakes no one.
			gather := time.NewTimer(logGather)
			select {
			case <-gather.C:
			case ack := <-l.flushes:
				flush(ack)
			case <-l.done:
			}
			drain()
			gather.Stop()
			write()
		case ack := <-l.flushes:
			flush(ack)
		case <-l.done:
			drain()
			write()
			return
		}
	}
}

// logTxBytes bounds the bodies one job of the log stores. A job of the log
// rides in a group of moves (write), which commits only once the job is
// stored, and under load a batch gathered in a tenth of a second holds
// hundreds of answers, each a whole payment. Batches are stored in jobs
// of about this much, so that a group of moves waits for one of them at
// most.
const logTxBytes = 256 << 10

// txEntries is how many of batch's first entries one job stores:
// those whose bodies fit logTxBytes, one at least.
func txEntries(batch []*PendingEntry) int {
	size := 0
	for i, p := range batch {
		size += len(p.reqBody) + len(p.RespBody)
		if size > logTxBytes && i > 0 {
			return i
		}
	}
	return len(batch)
}

// The writer's statements, prepared when a state opens.
const (
	insertChunkQuery = `INSERT INTO request_log (n, first_at, last_at, entries, texts_from, packed) VALUES (?, ?, ?, ?, ?, ?)`
	insertTextQuery  = `INSERT INTO request_log_texts (body, packed) VALUES (?, ?)`
)

func init() {
	store.PrepareOnOpen(insertChunkQuery)
	store.PrepareOnOpen(insertTextQuery)
}

// errTextsApart is a programming error: a chunk's texts are numbered from
// its first, so they must take consecutive ids, as SQLite gives them to
// rows inserted one after the other in one transaction.
var errTextsApart = errors.New("request log: a chunk's texts were not given consecutive ids")

// write stores a batch as one chunk and trims the log to its last
// maxLogEntries entries (whole chunks: a few hundred more at most). It is
// a job of the state's writer (store.State.Write), so it shares the
// transaction and the commit of the moves gathered with it rather than
// holding the one write connection between two of their groups. It masks
// and hashes the batch before it joins a group, so the group waits only
// for its inserts.
func (l *Log) write(batch []*PendingEntry) {
	ctx, cancel := context.WithTimeout(context.Background(), logWriteTimout)
	defer cancel()
	defer func() {
		for _, p := range batch { // nothing below keeps their bytes
			recycle(p)
		}
	}()
	entries, texts := l.prepareBatch(batch)
	doc := pack(&l.packer, appendChunk(make([]byte, 0, 256*len(entries)), entries))
	first, last := span(entries)
	trimNow := l.written+len(batch) >= LogTrimEvery
	err := l.s.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		insertChunk, err := l.s.Stmt(ctx, tx, insertChunkQuery)
		if err != nil {
			return err
		}
		insertText, err := l.s.Stmt(ctx, tx, insertTextQuery)
		if err != nil {
			return err
		}
		var textsFrom int64
		for k, text := range texts {
			res, err := insertText.ExecContext(ctx, text.body, text.packed)
			if err != nil {
				return err
			}
			id, err := res.LastInsertId()
			if err != nil {
				return err
			}
			if k == 0 {
				textsFrom = id
			} else if id != textsFrom+int64(k) {
				return errTextsApart
			}
		}
		if _, err := insertChunk.ExecContext(ctx, len(entries), first.UnixNano(), last.UnixNano(), doc.body, textsFrom, doc.packed); err != nil {
			return err
		}
		if trimNow {
			return trim(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return
	}
	l.written += len(batch)
	if trimNow {
		l.written = 0
	}
}

// prepareBatch turns a batch into the entries of its chunk and the masked
// bodies they name by their place in the list (from 1). A body seen
// earlier in the batch (the same payment read again) is neither masked
// nor stored again. Neither the map nor the list copies a body: the keys
// of seen and a body that needed no masking are the pending entries' own
// bytes, which stay as they are until write has stored the batch and
// recycles them.
func (l *Log) prepareBatch(batch []*PendingEntry) ([]storedEntry, []storedText) {
	entries := make([]storedEntry, len(batch))
	var texts []storedText
	seen := make(map[string]int, len(batch)) // raw body -> its place in texts, from 1
	ref := func(raw []byte) int {
		if len(raw) == 0 {
			return 0
		}
		if k, ok := seen[string(raw)]; ok {
			return k
		}
		texts = append(texts, pack(&l.packer, l.maskBody(raw)))
		seen[unsafe.String(&raw[0], len(raw))] = len(texts)
		return len(texts)
	}
	for i, p := range batch {
		entries[i].LogEntry = l.prepare(p)
		entries[i].RequestText, entries[i].ResponseText = ref(p.reqBody), ref(p.RespBody)
		if i%yieldEvery == yieldEvery-1 {
			// A batch is thousands of entries under load: the requests
			// waiting for a processor go first, so that the log's work
			// does not show in their latency.
			runtime.Gosched()
		}
	}
	return entries, texts
}

// A storedText is a body or a chunk as the log keeps it: packed or as it
// is.
type storedText struct {
	body   []byte
	packed bool
}

// packFrom is the size from which a body is kept packed: a move's answer
// (the whole payment, every capture and refund in it) is kilobytes of
// JSON that repeats itself and packs to a fraction; a small body gains
// little.
const packFrom = 1 << 10

// maxChunkBytes bounds what a stored chunk unpacks to: ChunkSpan entries
// of a few kilobytes each at most (a path, an error, their masks).
const maxChunkBytes = 64 << 20

// pack answers b as it is stored: packed when it is packFrom or more and
// that saves an eighth of it or more, as its length (a uvarint) and an
// LZ4 block. LZ4 packs at over a gigabyte a second on one core, in the
// log's goroutine (a payment of 45 captures, 6 KB, in about 5 µs, to a
// quarter; a chunk of thousands of entries to a tenth); the writer,
// which every move waits for, then writes, trims and copies back a
// fraction of the bytes. c is the goroutine's own compressor.
func pack(c *lz4.Compressor, b []byte) storedText {
	if len(b) < packFrom {
		return storedText{body: b}
	}
	packed := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64+lz4.CompressBlockBound(len(b))), uint64(len(b)))
	n, err := c.CompressBlock(b, packed[len(packed):cap(packed)])
	if err != nil || n == 0 || len(packed)+n > len(b)-len(b)/8 {
		return storedText{body: b} // n == 0: the block would not pack
	}
	return storedText{body: packed[:len(packed)+n], packed: true}
}

// unpack answers what text, as stored, holds; a packed text that does not
// unpack to the length it names, of at most max bytes, is damaged.
func unpack(text []byte, packed bool, max int) ([]byte, error) {
	if !packed {
		return text, nil
	}
	size, k := binary.Uvarint(text)
	if k <= 0 || size > uint64(max) {
		return nil, errDamagedText
	}
	b := make([]byte, size)
	if n, err := lz4.UncompressBlock(text[k:], b); err != nil || n != len(b) {
		return nil, errDamagedText
	}
	return b, nil
}

// errDamagedText is a packed text or chunk that does not unpack.
var errDamagedText = errors.New("it does not unpack")

// span answers the earliest and the latest time of the entries.
func span(entries []storedEntry) (first, last time.Time) {
	first, last = entries[0].At, entries[0].At
	for _, e := range entries {
		if e.At.Before(first) {
			first = e.At
		}
		if e.At.After(last) {
			last = e.At
		}
	}
	return first, last
}

// trim deletes the chunks older than the newest one at which the entries
// counted from the newest reach maxLogEntries, and the bodies only they
// named.
func trim(ctx context.Context, tx *sql.Tx) error {
	var keep int64
	err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM (SELECT seq, SUM(n) OVER (ORDER BY seq DESC) AS total
		FROM request_log) WHERE total >= ?`, MaxLogEntries).Scan(&keep)
	if err != nil || keep == 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM request_log WHERE seq < ?`, keep); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM request_log_bodies WHERE last_chunk < ?`, keep); err != nil {
		return err
	}
	// Texts are stored in the order of their chunks: those before the
	// first text of the chunks kept belong to chunks gone.
	_, err = tx.ExecContext(ctx, `DELETE FROM request_log_texts WHERE id < COALESCE(
		(SELECT MIN(texts_from) FROM request_log WHERE texts_from > 0), 9223372036854775807)`)
	return err
}

// prepare turns what the handler saw into the entry as stored: the key
// masked, the merchant and mode told by the key, the error read from the
// answer. The bodies are masked by write, which stores them.
func (l *Log) prepare(p *PendingEntry) LogEntry {
	e := LogEntry{At: p.At, Region: p.Region, Method: p.Method, Path: l.masker.String(p.Path), Status: p.Status,
		LatencyMS: float64(p.latency.Microseconds()) / 1000, Truncated: p.reqCut || p.respCut,
		Fault: p.fault.Kind, Committed: p.fault.Committed}
	if p.Key != "" {
		e.Key = secret.MaskKey(p.Key)
		if info, ok := l.s.Keys[p.Key]; ok {
			e.MerchantCode = info.Merchant.Code
			e.Mode = "live"
			if info.IsTest {
				e.Mode = "test"
			}
		}
	}
	if p.Status >= 400 {
		var body struct {
			ErrorType string            `json:"errorType"`
			Error     string            `json:"error"`
			Errors    []edge.FieldError `json:"errors"`
		}
		if json.Unmarshal(p.RespBody, &body) == nil {
			e.ErrorType, e.Error = body.ErrorType, body.Error
			if e.Error == "" && len(body.Errors) > 0 {
				e.Error = body.Errors[0].Field + ": " + body.Errors[0].Message
			}
		}
		if e.Error == "" && e.ErrorType == "" {
			e.Error = strings.TrimSpace(string(p.RespBody)) // the router's plain 404
		}
		e.Error = l.masker.String(e.Error)
	}
	return e
}

// maskBody answers a body fit to store: header values masked by their
// place in a webhook body, then every known key and anything shaped like
// a key or URL credentials. A body that is not UTF-8 text is described.
// A body with nothing to mask is answered as it is, not copied.
func (l *Log) maskBody(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if !utf8.Valid(b) {
		return []byte("(binary body, " + strconv.Itoa(len(b)) + " bytes kept of it)")
	}
	b = maskHeaderValues(b)
	if MayHoldSecret(b) {
		b = l.masker.Bytes(b)
	}
	return b
}

// MayHoldSecret tells whether the Masker could change b. It decodes JSON,
// which would be most of the log's cost: a body with no key prefix, no
// escape that could spell one, and no URL with credentials (an @ between
// a "://" and the end of the URL's host, where secret.RedactUserinfo
// looks) is stored as it is. Every key the sandbox knows starts with sk_;
// an escaped form of it holds a backslash. An e-mail address beside a URL
// (every checkout has both) is no credential.
//
// It looks for each of those with the bytes package's searches, which
// read many bytes at a time, so that a payment answered in full (every
// move of a busy payment is) costs a fraction of a byte-by-byte pass.
func MayHoldSecret(b []byte) bool {
	if bytes.IndexByte(b, '\\') >= 0 || bytes.Contains(b, []byte("sk_")) {
		return true
	}
	for rest := b; ; {
		at := bytes.Index(rest, []byte("://"))
		if at < 0 {
			return false
		}
		rest = rest[at+3:]
		if end := bytes.IndexAny(rest, urlAuthorityEnds); end >= 0 {
			if bytes.IndexByte(rest[:end], '@') >= 0 {
				return true
			}
		} else if bytes.IndexByte(rest, '@') >= 0 {
			return true
		}
	}
}

// urlAuthorityEnds are the bytes that end a URL's authority for
// MayHoldSecret: where secret.RedactURLs ends a URL, or RedactUserinfo its
// host, and the path's slash.
const urlAuthorityEnds = "/?# \t\n\r\"'`<>()[]{}"

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

// RequestLogDropped is how many requests this process could not log
// because its queue was full.
func (l *Log) RequestLogDropped() int64 {
	if l == nil {
		return 0
	}
	return l.dropped.Load()
}
