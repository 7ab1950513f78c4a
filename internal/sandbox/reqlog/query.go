package reqlog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path"
	"strconv"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// RequestLog lists logged requests: the latest Limit, newest first; or,
// with Forward, the next Limit after the cursor After, oldest first.
// Entries still queued by this process are written first.
func (l *Log) RequestLog(ctx context.Context, f LogFilter) ([]LogEntry, error) {
	list, _, err := l.query(ctx, f, false)
	return list, err
}

// RequestLogCount is RequestLog that also answers how many entries match
// the filter in all (After and Before aside). Without a status or path
// filter the count is read from the chunks' sizes; with one, the chunks
// are read through (their entries hold no bodies, so this stays cheap).
func (l *Log) RequestLogCount(ctx context.Context, f LogFilter) ([]LogEntry, int, error) {
	return l.query(ctx, f, true)
}

func (l *Log) query(ctx context.Context, f LogFilter, count bool) ([]LogEntry, int, error) {
	l.Flush(ctx)
	if f.Limit <= 0 {
		f.Limit = 100
	}
	f.Limit = min(f.Limit, 1000)
	match, err := f.matcher()
	if err != nil {
		return nil, 0, err
	}
	sc := &logScan{f: f, match: match, forward: f.Forward || f.After > 0}
	// Without a status or path filter the count is the chunks' sizes
	// (Since is judged by entry below, within the chunks it keeps).
	sc.countByScan = count && !sc.forward && (f.Status != "" || f.Path != "" || !f.Since.IsZero())
	if count && !sc.countByScan && !sc.forward {
		if err := l.s.DB.QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0) FROM request_log`).Scan(&sc.total); err != nil {
			return nil, 0, err
		}
	}
	query, args := sc.chunkQuery()
	rows, err := l.s.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var chunk, textsFrom int64
		var doc []byte
		var packed bool
		if err := rows.Scan(&chunk, &doc, &textsFrom, &packed); err != nil {
			return nil, 0, err
		}
		doc, err := unpack(doc, packed, maxChunkBytes)
		if err != nil {
			return nil, 0, store.CorruptRow("request_log", "seq", strconv.FormatInt(chunk, 10), err)
		}
		var entries []storedEntry
		if err := json.Unmarshal(doc, &entries); err != nil {
			return nil, 0, store.CorruptRow("request_log", "seq", strconv.FormatInt(chunk, 10), err)
		}
		for i := range entries {
			entries[i].textsFrom = textsFrom
		}
		if sc.take(chunk, entries) {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	rows.Close()
	list, err := l.withBodies(ctx, sc.out)
	return list, sc.total, err
}

// logScan walks the chunks of the log for one query: the entries it
// keeps, and the count when the count is made by reading them.
type logScan struct {
	f           LogFilter
	match       func(*LogEntry) bool
	forward     bool // oldest first, after f.After
	countByScan bool // count every matching entry, not only the kept ones
	out         []storedEntry
	total       int
}

// chunkQuery selects the chunks that may hold the query's entries, in the
// order it reads them.
func (sc *logScan) chunkQuery() (string, []any) {
	args := []any{int64(0)}
	if !sc.f.Since.IsZero() {
		args[0] = sc.f.Since.UnixNano()
	}
	switch {
	case sc.forward:
		return `SELECT seq, entries, texts_from, packed FROM request_log WHERE last_at >= ? AND seq >= ? ORDER BY seq ASC`, append(args, sc.f.After/ChunkSpan)
	case sc.f.Before > 0 && !sc.countByScan:
		return `SELECT seq, entries, texts_from, packed FROM request_log WHERE last_at >= ? AND seq <= ? ORDER BY seq DESC`, append(args, sc.f.Before/ChunkSpan)
	}
	return `SELECT seq, entries, texts_from, packed FROM request_log WHERE last_at >= ? ORDER BY seq DESC`, args
}

// take reads one chunk's entries in the query's order, and answers true
// when nothing more is needed.
func (sc *logScan) take(chunk int64, entries []storedEntry) (done bool) {
	f := sc.f
	for i := range entries {
		j := i
		if !sc.forward {
			j = len(entries) - 1 - i
		}
		e := entries[j]
		e.Seq = chunk*ChunkSpan + int64(j)
		if sc.forward && e.Seq <= f.After || !sc.match(&e.LogEntry) {
			continue
		}
		if sc.countByScan {
			sc.total++
		}
		if f.Before > 0 && e.Seq >= f.Before || len(sc.out) == f.Limit {
			if sc.countByScan {
				continue
			}
			if len(sc.out) == f.Limit {
				return true
			}
			continue
		}
		sc.out = append(sc.out, e)
		if len(sc.out) == f.Limit && !sc.countByScan {
			return true
		}
	}
	return false
}

// withBodies fills the entries' bodies: each a text of its chunk, or in a
// chunk written before texts, a body stored once by its hash.
func (l *Log) withBodies(ctx context.Context, out []storedEntry) ([]LogEntry, error) {
	list := make([]LogEntry, 0, len(out))
	seen := map[string]string{} // "t" and a text's id, or "h" and a hash -> body
	body := func(e *storedEntry, h string, text int) (string, error) {
		var key, query string
		var arg any
		switch {
		case text > 0:
			id := e.textsFrom + int64(text) - 1
			key, query, arg = "t"+strconv.FormatInt(id, 10), `SELECT body, packed FROM request_log_texts WHERE id = ?`, id
		case h != "":
			key, query, arg = "h"+h, `SELECT body, 0 FROM request_log_bodies WHERE hash = ?`, h
		default:
			return "", nil
		}
		if b, ok := seen[key]; ok {
			return b, nil
		}
		var b []byte
		var packed bool
		err := l.s.DB.QueryRowContext(ctx, query, arg).Scan(&b, &packed)
		if errors.Is(err, sql.ErrNoRows) {
			err = nil // trimmed meanwhile by another process
		}
		if err == nil {
			if b, err = unpack(b, packed, MaxLoggedBody); err != nil {
				err = store.CorruptRow("request_log_texts", "id", strconv.FormatInt(arg.(int64), 10), err)
			}
		}
		seen[key] = string(b)
		return string(b), err
	}
	for i := range out {
		e := &out[i]
		var err error
		if e.LogEntry.RequestBody, err = body(e, e.RequestHash, e.RequestText); err != nil {
			return nil, err
		}
		if e.LogEntry.ResponseBody, err = body(e, e.ResponseHash, e.ResponseText); err != nil {
			return nil, err
		}
		list = append(list, e.LogEntry)
	}
	return list, nil
}

// matcher checks the filter and answers its test of an entry.
func (f LogFilter) matcher() (func(*LogEntry) bool, error) {
	lo, hi := 0, 1000
	switch st := strings.ToLower(f.Status); {
	case st == "":
	case len(st) == 3 && st[1:] == "xx" && st[0] >= '1' && st[0] <= '5':
		lo = int(st[0]-'0') * 100
		hi = lo + 100
	default:
		n, err := strconv.Atoi(st)
		if err != nil || n < 100 || n > 599 {
			return nil, edge.BadData("status must be a code such as 404 or a class such as 4xx")
		}
		lo, hi = n, n+1
	}
	if f.Path != "" {
		if _, err := path.Match(f.Path, "/"); err != nil {
			return nil, edge.BadData("path is not a valid glob: " + err.Error())
		}
	}
	return func(e *LogEntry) bool {
		return e.Status >= lo && e.Status < hi && (f.Since.IsZero() || !e.At.Before(f.Since)) &&
			(f.Path == "" || pathMatches(f.Path, e.Path))
	}, nil
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
