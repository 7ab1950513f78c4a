package extras

import (
	"net/http"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/reqlog"
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
	f := reqlog.LogFilter{Status: q.Get("status"), Path: q.Get("path")}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			edge.WriteError(w, edge.BadData("since must be an RFC 3339 time such as 2025-01-02T15:04:05Z"))
			return
		}
		f.Since = t
	}
	pg, err := pageParams(q)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	f.After, f.Before, f.Forward, f.Limit = pg.after, pg.before, pg.forward, pg.limit
	if s.Log == nil {
		edge.WriteError(w, &edge.Refusal{Status: 409, ErrorType: "conflict", Message: "this sandbox keeps no request log: it was started with --no-request-log"})
		return
	}
	cursor := f.After
	if !f.Forward {
		// Where following starts: after everything there is now, whether
		// or not the filters showed it.
		if err := s.DB.QueryRowContext(r.Context(), `SELECT COALESCE(MAX(seq * ? + n - 1), 0) FROM request_log`, reqlog.ChunkSpan).Scan(&cursor); err != nil {
			edge.WriteError(w, err)
			return
		}
	}
	list, total, err := s.Log.RequestLogCount(r.Context(), f)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	for _, e := range list {
		cursor = max(cursor, e.Seq)
	}
	answer := map[string]any{"entries": list, "cursor": cursor, "dropped": s.Log.RequestLogDropped()}
	if !f.Forward {
		answer["total"] = total
	}
	edge.WriteJSON(w, http.StatusOK, answer)
}
