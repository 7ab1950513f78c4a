package middleware

import (
	"net/http"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// ClockStepMiddleware moves a fixed clock by ClockStep before each request
// that may change the state, so the request's times are after the last
// one's. It is the innermost middleware: a request a fault or the rate
// limit stops before the handler does not move it.
func ClockStepMiddleware(clock store.Clock, h http.Handler) http.Handler {
	c, ok := clock.(*store.SteppingClock)
	if !ok {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			c.Step()
		}
		h.ServeHTTP(w, r)
	})
}

// DateMiddleware gives every answer a Date of the sandbox's own clock
// (fixed or not, advances included), the one its created_at times are of:
// the answers a fault or the rate limit writes too, which never reach a
// handler. A handler that sets Date itself (after the clock's step) has the
// last word. So every client sees one time, whatever answers it.
func DateMiddleware(st *store.State, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if now, err := st.CurrentTime(r.Context()); err == nil {
			w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
		}
		h.ServeHTTP(w, r)
	})
}
