package extras

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// The customer's and the service's own moves, which the API does not
// expose. Each is a store.MoveFunc, so it commits through State.Move like every
// other change.

func (s *Local) approveMove(rec *store.Record, now time.Time) (string, error) {
	if err := needCreated(rec, "approved"); err != nil {
		return "", err
	}
	if rec.SessionStatus == wire.SessionRejected {
		return "", edge.BadData(fmt.Sprintf("could not approve: the checkout was rejected at pre-scoring (%s)", rec.RejectionReason))
	}
	if rec.Payment.Buyer != nil && strings.EqualFold(strings.TrimSpace(rec.Payment.Buyer.Email), service.OTPRejectedEmail) {
		rec.Payment.Status = wire.StatusRejected
		return "rejected", nil
	}
	at := now
	expires := now.Add(s.AuthExpiry)
	rec.Payment.Status = wire.StatusAuthorized
	rec.Payment.ExpiresAt = &expires
	rec.AuthorizedAt = &at
	rec.AuthExpiresAt = &expires
	return "authorized", nil
}

func rejectMove(rec *store.Record, now time.Time) (string, error) {
	if err := needCreated(rec, "rejected"); err != nil {
		return "", err
	}
	rec.Payment.Status = wire.StatusRejected
	return "rejected", nil
}

func cancelMove(rec *store.Record, now time.Time) (string, error) {
	if err := needCreated(rec, "cancelled"); err != nil {
		return "", err
	}
	rec.Payment.Status = wire.StatusExpired
	return "expired", nil
}

func expireAuthMove(rec *store.Record, now time.Time) (string, error) {
	if rec.Payment.Status != wire.StatusAuthorized {
		return "", edge.BadData(fmt.Sprintf("only authorized payments have an authorization to expire; this one is %s", rec.Payment.Status))
	}
	if rec.AuthExpired(now) {
		return "", nil
	}
	at := now
	rec.AuthExpiresAt = &at
	rec.Payment.ExpiresAt = &at
	return "auth_expired", nil
}

func needCreated(rec *store.Record, verb string) error {
	if rec.Payment.Status != wire.StatusCreated {
		return edge.BadData(fmt.Sprintf("only CREATED payments can be %s; this one is %s", verb, rec.Payment.Status))
	}
	return nil
}

// customerMove runs a move on a payment named by its id or its session's.
func (s *Local) customerMove(ctx context.Context, id string, fn store.MoveFunc) (*wire.Payment, error) {
	id, ok := edge.CanonicalID(id)
	if !ok {
		return nil, edge.ErrInvalidID
	}
	paymentID, err := s.ResolvePaymentID(ctx, id)
	if err != nil {
		return nil, err
	}
	rec, err := s.Move(ctx, paymentID, nil, fn)
	if err != nil {
		return nil, err
	}
	return &rec.Payment, nil
}

// Approve completes checkout as the customer would: the payment becomes
// AUTHORIZED (REJECTED for the OTP-rejected test buyer). id is a session id
// or a payment id. Refusals are errors with a StatusCode() method.
func (s *Local) Approve(ctx context.Context, id string) (*wire.Payment, error) {
	return s.customerMove(ctx, id, s.approveMove)
}

// Reject ends checkout as refused: the payment becomes REJECTED.
func (s *Local) Reject(ctx context.Context, id string) (*wire.Payment, error) {
	return s.customerMove(ctx, id, rejectMove)
}

// Cancel ends checkout as abandoned by the customer: the payment becomes
// EXPIRED.
func (s *Local) Cancel(ctx context.Context, id string) (*wire.Payment, error) {
	return s.customerMove(ctx, id, cancelMove)
}

// ExpireAuth makes an AUTHORIZED payment's authorization lapse now: it
// stays AUTHORIZED, but close and capture are refused from then on.
func (s *Local) ExpireAuth(ctx context.Context, paymentID string) (*wire.Payment, error) {
	paymentID, ok := edge.CanonicalID(paymentID)
	if !ok {
		return nil, edge.ErrInvalidID
	}
	rec, err := s.Move(ctx, paymentID, nil, expireAuthMove)
	if err != nil {
		return nil, err
	}
	return &rec.Payment, nil
}

// Now is the sandbox's current time (its clock plus any advance).
func (s *Local) Now(ctx context.Context) (time.Time, error) { return s.CurrentTime(ctx) }

// AdvanceClock moves the sandbox's time forward by d, for every process
// sharing the state, and answers the new time.
// The total advance is capped at 100 years; beyond it the answer is a 400
// and the state is left as it was.
func (s *Local) AdvanceClock(ctx context.Context, d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, edge.BadData("the sandbox clock only moves forward")
	}
	if err := s.AdvanceClockBy(ctx, d.String(), d); err != nil {
		return time.Time{}, err
	}
	return s.CurrentTime(ctx)
}

func (s *Local) controlRoutes(mux *http.ServeMux, region string) {
	moves := map[string]func(context.Context, string) (*wire.Payment, error){
		"approve": s.Approve, "reject": s.Reject, "cancel": s.Cancel,
	}
	for name, fn := range moves {
		h := middleware.LoopbackOnly(s.controlMoveHandler(fn))
		mux.HandleFunc("POST /_sandbox/checkout/{id}/"+name, h)
		mux.HandleFunc("POST /_sandbox/payments/{id}/"+name, h)
	}
	mux.HandleFunc("POST /_sandbox/payments/{id}/expire-auth", middleware.LoopbackOnly(s.controlMoveHandler(s.ExpireAuth)))
	mux.HandleFunc("POST /_sandbox/reset", middleware.LoopbackOnly(func(w http.ResponseWriter, r *http.Request) {
		if err := s.Reset(r.Context()); err != nil {
			edge.WriteError(w, err)
			return
		}
		edge.WriteJSON(w, http.StatusOK, map[string]string{"status": "reset"})
	}))
	mux.HandleFunc("GET /_sandbox/clock", middleware.LoopbackOnly(s.handleClock))
	mux.HandleFunc("POST /_sandbox/clock/advance", middleware.LoopbackOnly(s.handleClockAdvance))
}

func (s *Local) controlMoveHandler(fn func(context.Context, string) (*wire.Payment, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := fn(r.Context(), r.PathValue("id"))
		if err != nil {
			edge.WriteError(w, err)
			return
		}
		edge.WriteJSON(w, http.StatusOK, p)
	}
}

type clockView struct {
	Now    time.Time `json:"now"`
	Offset string    `json:"offset"`
}

func (s *Local) handleClock(w http.ResponseWriter, r *http.Request) {
	now, err := s.CurrentTime(r.Context())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	offset, err := s.ClockOffset(r.Context())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, clockView{Now: now, Offset: offset.String()})
}

// handleClockAdvance takes the duration as ?by=, as a JSON body {"by": ...}
// or as a bare body; durations are Go's (90s, 1h30m) plus whole days (7d).
func (s *Local) handleClockAdvance(w http.ResponseWriter, r *http.Request) {
	by := r.URL.Query().Get("by")
	if by == "" {
		body, err := edge.ReadBody(r)
		if err != nil {
			edge.WriteError(w, edge.BodyRefusal(err, edge.BadData("failed to decode request")))
			return
		}
		var req struct {
			By string `json:"by"`
		}
		if json.Unmarshal(body, &req) == nil {
			by = req.By
		} else {
			by = strings.Trim(strings.TrimSpace(string(body)), `"`)
		}
	}
	d, err := store.ParseDuration(by)
	if refusal := s.Refusal(r.Context(), err); refusal != nil {
		edge.WriteError(w, refusal)
		return
	}
	if err != nil {
		edge.WriteError(w, edge.BadData(fmt.Sprintf("invalid duration %q: use Go durations such as 90s, 1h30m, or days such as 7d", by)))
		return
	}
	if d < 0 {
		edge.WriteError(w, edge.BadData("the sandbox clock only moves forward"))
		return
	}
	if err := s.AdvanceClockBy(r.Context(), by, d); err != nil {
		edge.WriteError(w, err)
		return
	}
	s.handleClock(w, r)
}
