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
// last word, and then the clock is not read twice. So every client sees
// one time, whatever answers it.
func DateMiddleware(st *store.State, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&dateWriter{ResponseWriter: w, st: st, r: r}, r)
	})
}

// dateWriter sets Date, when the handler has not, as the answer's header
// is written.
type dateWriter struct {
	http.ResponseWriter
	st    *store.State
	r     *http.Request
	dated bool
}

func (w *dateWriter) date() {
	if w.dated {
		return
	}
	w.dated = true
	if w.Header().Get("Date") != "" {
		return
	}
	if now, err := w.st.CurrentTime(w.r.Context()); err == nil {
		w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
	}
}

func (w *dateWriter) WriteHeader(code int) {
	w.date()
	w.ResponseWriter.WriteHeader(code)
}

func (w *dateWriter) Write(b []byte) (int, error) {
	w.date()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (a fault that
// drops it hijacks it).
func (w *dateWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
