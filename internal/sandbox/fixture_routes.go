package sandbox

import (
	"errors"
	"io"
	"net/http"
	"strconv"
)

// The fixture endpoints, loopback only like every control endpoint:
//
//	POST /_sandbox/seed?name=FILE&seed=N   the body is a fixture file (YAML or JSON);
//	                                       200 with its normalised form as JSON, or
//	                                       400 bad_data naming FILE:LINE: FIELD (nothing changed)
//	GET  /_sandbox/export                  the state as a fixture, JSON
func (s *Sandbox) fixtureRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /_sandbox/seed", loopbackOnly(s.handleSeed))
	mux.HandleFunc("GET /_sandbox/export", loopbackOnly(s.handleExport))
}

func (s *Sandbox) handleSeed(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name := q.Get("name")
	if name == "" {
		name = "fixture"
	}
	var seed int64
	if v := q.Get("seed"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			writeError(w, badData("seed must be an integer, got "+strconv.Quote(v)))
			return
		}
		seed = n
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxFixtureFile+1))
	if err != nil {
		writeError(w, badData("could not read the fixture: "+err.Error()))
		return
	}
	fx, err := s.SeedFixture(r.Context(), name, data, seed)
	var fe *FixtureError
	if errors.As(err, &fe) {
		writeError(w, &apiError{status: http.StatusBadRequest, errorType: "bad_data", message: err.Error()})
		return
	}
	if err != nil {
		writeError(w, &apiError{status: http.StatusInternalServerError, errorType: "internal", message: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, fx)
}

func (s *Sandbox) handleExport(w http.ResponseWriter, r *http.Request) {
	fx, err := s.ExportFixture(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, fx)
}
