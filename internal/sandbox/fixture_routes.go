package sandbox

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/fixture"
	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
)

// The fixture endpoints, loopback only like every control endpoint:
//
//	POST /_sandbox/seed?name=FILE&seed=N   the body is a fixture file (YAML or JSON);
//	                                       200 with its normalised form as JSON, or
//	                                       400 bad_data naming FILE:LINE: FIELD (nothing changed),
//	                                       409 conflict when another seed held the state too
//	                                       long, or the state refused what a scratch run took
//	                                       (what it had made taken back: nothing changed)
//	GET  /_sandbox/export                  the state as a fixture, JSON
func (s *Sandbox) fixtureRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /_sandbox/seed", middleware.LoopbackOnly(s.handleSeed))
	mux.HandleFunc("GET /_sandbox/export", middleware.LoopbackOnly(s.handleExport))
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
			edge.WriteError(w, edge.BadData("seed must be an integer, got "+strconv.Quote(v)))
			return
		}
		seed = n
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, fixture.MaxFileSize+1))
	if err != nil {
		edge.WriteError(w, edge.BadData("could not read the fixture: "+err.Error()))
		return
	}
	fx, err := s.SeedFixture(r.Context(), name, data, seed)
	var fe *fixture.FixtureError
	if errors.As(err, &fe) {
		edge.WriteError(w, &edge.Refusal{Status: http.StatusBadRequest, ErrorType: "bad_data", Message: err.Error()})
		return
	}
	var refusal *edge.Refusal
	if errors.As(err, &refusal) {
		edge.WriteError(w, refusal)
		return
	}
	if err != nil {
		edge.WriteError(w, &edge.Refusal{Status: http.StatusInternalServerError, ErrorType: "internal", Message: err.Error()})
		return
	}
	edge.WriteJSON(w, http.StatusOK, fx)
}

func (s *Sandbox) handleExport(w http.ResponseWriter, r *http.Request) {
	fx, err := s.ExportFixture(r.Context())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, fx)
}
