package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/fixture"
)

// fixtureTarget applies a fixture's requests to a sandbox: the routes of
// each region without the middleware (faults, rate limit, request log,
// Host guard), so that a fixture's moves meet the state machine, not the
// chaos a served sandbox may have been asked for.
type fixtureTarget struct {
	by map[string]http.Handler
}

var _ fixture.Target = (*fixtureTarget)(nil)

func newFixtureTarget(s *Sandbox) *fixtureTarget {
	t := &fixtureTarget{by: map[string]http.Handler{}}
	for _, region := range []string{"ae", "sa"} {
		mux := http.NewServeMux()
		s.routes(mux, region)
		t.by[region] = mux
	}
	return t
}

// Call sends one request to the region's routes, in process, and answers
// the service's refusal as an error in its words.
func (t *fixtureTarget) Call(ctx context.Context, region, key, method, path string, body, out any) error {
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1"+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.RemoteAddr = "127.0.0.1:0" // the control paths answer loopback only
	rec := httptest.NewRecorder()
	t.by[region].ServeHTTP(rec, req)
	raw := rec.Body.Bytes()
	if rec.Code/100 != 2 {
		return fixtureRefusal(rec.Code, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// fixtureRefusal turns a refusal's body into an error: a field's, or the
// message of the simple form. A 500 keeps its status, so that the seed
// can tell the state's failure from a refusal.
func fixtureRefusal(status int, raw []byte) error {
	var e struct {
		Error  string            `json:"error"`
		Errors []edge.FieldError `json:"errors"`
	}
	_ = json.Unmarshal(raw, &e)
	if len(e.Errors) > 0 {
		f := e.Errors[0]
		return &fixture.Refusal{Field: f.Field, Msg: fmt.Sprintf("%s (the sandbox answered %d)", f.Message, status)}
	}
	msg := e.Error
	if msg == "" {
		msg = strings.TrimSpace(string(raw))
	}
	return fmt.Errorf("%s (the sandbox answered %d)", msg, status)
}
