package extras

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
)

// Control endpoints of the delivery log: each attempt, and a resend.

func (s *Local) deliveryRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /_sandbox/deliveries", middleware.LoopbackOnly(s.handleDeliveries))
	mux.HandleFunc("GET /_sandbox/delivery-attempts", middleware.LoopbackOnly(s.handleDeliveryAttempts))
	mux.HandleFunc("GET /_sandbox/pending-deliveries", middleware.LoopbackOnly(s.handlePendingDeliveries))
	mux.HandleFunc("POST /_sandbox/deliveries/{id}/resend", middleware.LoopbackOnly(s.handleResend))
	mux.HandleFunc("POST /_sandbox/pending-deliveries/drop", middleware.LoopbackOnly(s.handleDropPending))
	mux.HandleFunc("GET /_sandbox/logs", middleware.LoopbackOnly(s.handleRequestLog))
}

// handleDeliveryAttempts answers {"attempts": [...], "cursor": N, "total":
// N}: the latest attempts newest first (?limit=N of them, 100 by default),
// with ?before=SEQ those older than that attempt, or with ?after=CURSOR
// those after it, oldest first; cursor is what to pass as after next time.
// total, answered unless following, counts every attempt the filters match.
func (s *Local) handleDeliveryAttempts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := outbox.DeliveryFilter{PaymentID: strings.ToLower(q.Get("payment")), DisputeID: strings.ToLower(q.Get("dispute"))}
	switch q.Get("status") {
	case "":
	case outbox.DeliveryFailed:
		f.Failed = true
	case outbox.DeliveryDelivered:
		f.Delivered = true
	default:
		edge.WriteError(w, edge.BadData("status must be failed or delivered"))
		return
	}
	pg, err := pageParams(q)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	f.After, f.Before, f.Forward, f.Limit = pg.after, pg.before, pg.forward, pg.limit
	cursor := f.After
	if !f.Forward {
		// Where following starts: after everything there is now, whether
		// or not the filters showed it.
		if err := s.DB.QueryRowContext(r.Context(), `SELECT COALESCE(MAX(seq), 0) FROM delivery_attempts`).Scan(&cursor); err != nil {
			edge.WriteError(w, err)
			return
		}
	}
	list, err := s.Outbox.DeliveryAttempts(r.Context(), f)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	for _, a := range list {
		cursor = max(cursor, a.Seq)
	}
	answer := map[string]any{"attempts": list, "cursor": cursor}
	if !f.Forward {
		n, err := s.Outbox.CountDeliveryAttempts(r.Context(), f)
		if err != nil {
			edge.WriteError(w, err)
			return
		}
		answer["total"] = n
	}
	edge.WriteJSON(w, http.StatusOK, answer)
}

func (s *Local) handleResend(w http.ResponseWriter, r *http.Request) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, edge.BadData("invalid delivery id"))
		return
	}
	a, err := s.Outbox.Resend(r.Context(), id)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, a)
}

// page is where a listing of a sandbox record starts and how much it takes:
// ?after=SEQ (follow: the entries after it, oldest first), ?before=SEQ
// (page back: older than it) and ?limit=N.
type page struct {
	after, before int64
	forward       bool
	limit         int
}

func pageParams(q url.Values) (page, error) {
	var pg page
	var err error
	pg.forward = q.Has("after")
	if pg.after, err = cursorParam(q.Get("after")); err != nil {
		return pg, err
	}
	if pg.before, err = cursorParam(q.Get("before")); err != nil {
		return pg, err
	}
	pg.limit, err = limitParam(q.Get("limit"))
	return pg, err
}

func cursorParam(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, edge.BadData("after must be a cursor answered by an earlier call")
	}
	return n, nil
}

func limitParam(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, edge.BadData("limit must be a positive number")
	}
	return n, nil
}

// handlePendingDeliveries answers {"attempts": [...], "cursor": 0,
// "total": N}: the deliveries of the outbox waiting for an attempt, as the
// attempts to come (outcome pending, at = when due), soonest first;
// ?payment= ?dispute= ?limit= as for the attempts.
func (s *Local) handlePendingDeliveries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := outbox.DeliveryFilter{PaymentID: strings.ToLower(q.Get("payment")), DisputeID: strings.ToLower(q.Get("dispute"))}
	pg, err := pageParams(q)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	if pg.forward || pg.before > 0 {
		edge.WriteError(w, edge.BadData("the pending deliveries are what waits now: they take no after or before"))
		return
	}
	f.Limit = pg.limit
	list, err := s.Outbox.PendingAttempts(r.Context(), f)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, map[string]any{"attempts": list, "cursor": 0, "total": len(list)})
}

// handleDropPending answers {"dropped": N}: the pending deliveries of
// ?payment= or ?dispute= (every one without either) ended unsent.
func (s *Local) handleDropPending(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := outbox.DeliveryFilter{PaymentID: strings.ToLower(q.Get("payment")), DisputeID: strings.ToLower(q.Get("dispute"))}
	n, err := s.Outbox.DropPending(r.Context(), f)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, map[string]any{"dropped": n})
}

func (s *Local) handleDeliveries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	kind := q.Get("kind")
	if kind != "" && kind != outbox.HookKindPayment && kind != outbox.HookKindDispute {
		edge.WriteError(w, edge.BadData("kind must be payment or dispute"))
		return
	}
	limit := 0
	if v := q.Get("limit"); v != "" {
		if _, err := fmt.Sscanf(v, "%d", &limit); err != nil || limit < 0 {
			edge.WriteError(w, edge.BadData("limit must be a positive number"))
			return
		}
	}
	list, err := s.Outbox.Deliveries(r.Context(), kind, q.Get("subject"), limit)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, map[string]any{"deliveries": list})
}
