package extras

import (
	"database/sql"
	"errors"
	"net/http"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// PaymentTimes are the times of a payment's moves the service's payment
// does not show, as the sandbox keeps them (its clock): when it was
// authorized and closed, and when its authorization lapses. `bnpl
// payments timeline` shows them on a sandbox.
type PaymentTimes struct {
	PaymentID     string     `json:"payment_id"`
	Status        string     `json:"status"`
	CreatedAt     *time.Time `json:"created_at,omitempty"`
	AuthorizedAt  *time.Time `json:"authorized_at,omitempty"`
	ClosedAt      *time.Time `json:"closed_at,omitempty"`
	AuthExpiresAt *time.Time `json:"auth_expires_at,omitempty"`
}

func (s *Local) timesRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /_sandbox/payments/{id}/times", middleware.LoopbackOnly(s.handlePaymentTimes))
}

// handlePaymentTimes answers the PaymentTimes of a payment named by its id
// or its session's.
func (s *Local) handlePaymentTimes(w http.ResponseWriter, r *http.Request) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, edge.ErrNoSuchPayment)
		return
	}
	var doc []byte
	err := s.DB.QueryRowContext(r.Context(), `SELECT `+store.PaymentDoc+` FROM payments WHERE id = ? OR session_id = ?`, id, id).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		edge.WriteError(w, edge.ErrNoSuchPayment)
		return
	}
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	rec, err := store.DecodeRecord(doc, "id", id)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	now, err := s.CurrentTime(r.Context())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	rec.Settle(now)
	edge.WriteJSON(w, http.StatusOK, PaymentTimes{PaymentID: rec.Payment.ID, Status: rec.Payment.Status, CreatedAt: rec.Payment.CreatedAt,
		AuthorizedAt: rec.AuthorizedAt, ClosedAt: rec.ClosedAt, AuthExpiresAt: rec.AuthExpiresAt})
}
