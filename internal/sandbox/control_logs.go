package sandbox

import (
	"net/http"
	"time"
)

// handleRequestLog answers {"entries": [...], "cursor": N, "total": N,
// "dropped": N}: the latest entries newest first (?limit=N of them, 100 by
// default), with ?before=SEQ those older than that entry, or with
// ?after=CURSOR those after it, oldest first. ?status=404|4xx|5xx,
// ?path=GLOB, ?since=RFC3339 filter. total, answered unless following,
// counts every entry the filters match; dropped counts requests this
// process could not log (a full queue).
func (s *Local) handleRequestLog(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := LogFilter{Status: q.Get("status"), Path: q.Get("path")}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			writeError(w, badData("since must be an RFC 3339 time such as 2025-01-02T15:04:05Z"))
			return
		}
		f.Since = t
	}
	pg, err := pageParams(q)
	if err != nil {
		writeError(w, err)
		return
	}
	f.After, f.Before, f.Forward, f.Limit = pg.after, pg.before, pg.forward, pg.limit
	if s.reqlog == nil {
		writeError(w, &apiError{status: 409, errorType: "conflict", message: "this sandbox keeps no request log: it was started with --no-request-log"})
		return
	}
	cursor := f.After
	if !f.Forward {
		// Where following starts: after everything there is now, whether
		// or not the filters showed it.
		if err := s.db.QueryRowContext(r.Context(), `SELECT COALESCE(MAX(seq * ? + n - 1), 0) FROM request_log`, chunkSpan).Scan(&cursor); err != nil {
			writeError(w, err)
			return
		}
	}
	list, total, err := s.reqlog.RequestLogCount(r.Context(), f)
	if err != nil {
		writeError(w, err)
		return
	}
	for _, e := range list {
		cursor = max(cursor, e.Seq)
	}
	answer := map[string]any{"entries": list, "cursor": cursor, "dropped": s.reqlog.RequestLogDropped()}
	if !f.Forward {
		answer["total"] = total
	}
	writeJSON(w, http.StatusOK, answer)
}
