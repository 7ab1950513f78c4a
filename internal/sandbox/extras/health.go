package extras

import (
	"context"
	"math"
	"net/http"
	"time"

	"github.com/bnpl-cli/bnpl/internal/buildinfo"
	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// The readiness check: GET /_sandbox/health answers 200 once the sandbox
// serves, with what a person or a CI job wants to see of it, and 503 when
// its state cannot be read (the database is closed, locked past the check's
// time or unreadable). Serve answers once the state is open, 503 with
// status "unavailable" until its seed file is in (sandbox.startingGate). It is
// open to every client, like the hosted page: it tells nothing about
// payments, and a container's health check or another container's job
// calls it. The Host guard of /_sandbox/ paths still applies.

// Health is the body of GET /_sandbox/health.
type Health struct {
	// Service is always wire.SandboxService: what names this answer a
	// bnpl sandbox's.
	Service string `json:"service"`
	Status  string `json:"status"` // "ok" or "unavailable"
	// Instance is the id of this run of the sandbox (bnpl sandbox serve
	// --instance, else a random one), so that a waiting job can tell the
	// sandbox it started from another that holds the port; "" in-process.
	Instance string `json:"instance,omitempty"`
	// Version is the bnpl version serving (buildinfo).
	Version string `json:"version"`
	// State is "file" or "memory".
	State string `json:"state"`
	// Uptime is how long the state has been open, as a Go duration, and
	// UptimeSeconds the same in whole seconds.
	Uptime        string `json:"uptime"`
	UptimeSeconds int64  `json:"uptime_seconds"`
	// Error says why the sandbox cannot serve (503 only).
	Error string `json:"error,omitempty"`
}

// healthTimeout bounds the state check of one health request.
const healthTimeout = 2 * time.Second

func (s *Local) handleHealth(w http.ResponseWriter, r *http.Request) {
	h := s.Health(r.Context())
	w.Header().Set("Cache-Control", "no-store")
	status := http.StatusOK
	if h.Status != "ok" {
		status = http.StatusServiceUnavailable
	}
	edge.WriteJSON(w, status, h)
}

// Health reads the state once and says whether the sandbox can serve.
func (s *Local) Health(ctx context.Context) Health {
	version, _, _ := buildinfo.Info()
	h := Health{Service: wire.SandboxService, Status: "ok", Instance: s.Instance, Version: version, State: "memory"}
	if s.stateFile {
		h.State = "file"
	}
	up := time.Since(s.started)
	h.Uptime = up.Truncate(time.Second).String()
	h.UptimeSeconds = int64(math.Floor(up.Seconds()))
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	var one int
	if s.DB == nil {
		h.Status, h.Error = "unavailable", "the state is not open"
	} else if err := s.DB.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		h.Status, h.Error = "unavailable", "the state cannot be read: "+err.Error()
	}
	return h
}
