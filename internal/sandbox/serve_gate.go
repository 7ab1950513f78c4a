package sandbox

import (
	"net/http"
	"sync/atomic"

	"github.com/bnpl-cli/bnpl/internal/buildinfo"
	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/extras"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// startingGate answers every request 503 until the sandbox is ready: the
// listeners serve from the moment the state is open, so that a client
// that comes while a --seed-file is loading (thousands of payments take
// seconds) hears that the sandbox is starting rather than wait on a
// connection no one answers. /_sandbox/health answers the readiness
// check's body with status "unavailable"; every other path the service's
// error body, with Retry-After.
//
// Outside the seed (the moments between the state opening and the
// sandbox being announced) a request waits for the gate instead, as it
// waited on the listener's queue before the servers started.
type startingGate struct {
	ready    atomic.Bool
	seeding  atomic.Bool
	opened   chan struct{}
	instance string
	state    string
}

// startingMessage is what a request hears before the sandbox is ready.
const startingMessage = "the sandbox is starting: it serves once its state is open and its seed file loaded"

func newStartingGate(instance string, stateFile bool) *startingGate {
	g := &startingGate{instance: instance, state: "memory", opened: make(chan struct{})}
	if stateFile {
		g.state = "file"
	}
	return g
}

// open lets requests through to the sandbox from now on.
func (g *startingGate) open() {
	if !g.ready.Swap(true) {
		close(g.opened)
	}
}

// seed marks the seed file loading (true) or loaded (false): requests are
// answered 503 meanwhile.
func (g *startingGate) seed(on bool) { g.seeding.Store(on) }

// wrap is next behind the gate.
func (g *startingGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.ready.Load() {
			next.ServeHTTP(w, r)
			return
		}
		if !g.seeding.Load() {
			select {
			case <-g.opened:
				next.ServeHTTP(w, r)
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Retry-After", "1")
		if r.URL.Path == wire.SandboxHealthPath {
			version, _, _ := buildinfo.Info()
			edge.WriteJSON(w, http.StatusServiceUnavailable, extras.Health{Service: wire.SandboxService, Status: "unavailable",
				Instance: g.instance, Version: version, State: g.state, Uptime: "0s", Error: startingMessage})
			return
		}
		edge.WriteError(w, &edge.Refusal{Status: http.StatusServiceUnavailable, ErrorType: "internal", Message: startingMessage})
	})
}
