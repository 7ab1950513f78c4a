package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

const movedPaymentID = "3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f"

// fakeService is a one-payment service whose captures and closes can be
// made to commit and then drop the connection, the case reconciliation is
// for.
type fakeService struct {
	mu       sync.Mutex
	payment  api.Payment
	requests []string // "METHOD path"
	// dropNext makes the next move commit and then drop the connection.
	dropNext int
}

func newFakeService(t *testing.T, status string) (*fakeService, *httptest.Server) {
	t.Helper()
	fs := &fakeService{payment: api.Payment{
		ID: movedPaymentID, Amount: decimal.RequireFromString("1250.00"), Currency: "AED",
		Status: status, IsTest: true, Captures: []api.Capture{}, Refunds: []api.Refund{},
	}}
	srv := httptest.NewServer(http.HandlerFunc(fs.serve))
	t.Cleanup(srv.Close)
	return fs, srv
}

func (fs *fakeService) serve(w http.ResponseWriter, r *http.Request) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.requests = append(fs.requests, r.Method+" "+r.URL.Path)
	refuse := func(msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "error", "errorType": "bad_data", "error": msg})
	}
	p := &fs.payment
	switch {
	case r.Method == http.MethodGet:
	case strings.HasSuffix(r.URL.Path, "/captures"):
		var req api.CaptureRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			refuse("EOF")
			return
		}
		if p.Status == api.StatusClosed {
			refuse("already closed")
			return
		}
		if req.Amount.GreaterThan(p.Capturable()) {
			refuse("could not capture: could not capture more than not captured yet")
			return
		}
		p.Captures = append(p.Captures, api.Capture{ID: "c" + req.ReferenceID, Amount: req.Amount, ReferenceID: req.ReferenceID})
		if !p.Capturable().IsPositive() {
			p.Status = api.StatusClosed
		}
	case strings.HasSuffix(r.URL.Path, "/close"):
		if p.Status == api.StatusClosed {
			refuse("already closed")
			return
		}
		p.Status = api.StatusClosed
	default:
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && fs.dropNext > 0 {
		fs.dropNext--
		// Committed above; the answer is lost.
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(p)
}

func (fs *fakeService) count(prefix string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := 0
	for _, r := range fs.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

type harness struct {
	f      *cmdutil.Factory
	in     *bytes.Buffer
	out    *bytes.Buffer
	errOut *bytes.Buffer
}

// newHarness is a factory whose target is baseURL with key, and whose
// streams are buffers.
func newHarness(t *testing.T, baseURL, key string) *harness {
	t.Helper()
	ios, in, out, errOut := output.Test()
	dir := t.TempDir()
	env := map[string]string{
		"XDG_CONFIG_HOME":    dir + "/config",
		"XDG_STATE_HOME":     dir + "/state",
		"XDG_CACHE_HOME":     dir + "/cache",
		"HOME":               dir,
		"BNPL_SECRET_KEY":    key,
		"BNPL_BASE_URL":      baseURL,
		"BNPL_MERCHANT_CODE": "ae-sandbox",
	}
	f := &cmdutil.Factory{
		IO:     ios,
		Global: &cmdutil.GlobalOptions{Timeout: 5 * time.Second, Retries: 2, Output: "tsv"},
		Getenv: func(k string) string { return env[k] },
	}
	return &harness{f: f, in: in, out: out, errOut: errOut}
}

func (h *harness) run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(h.out)
	cmd.SetErr(h.errOut)
	return cmd.ExecuteContext(context.Background())
}

func TestCaptureReconcilesADroppedConnection(t *testing.T) {
	fs, srv := newFakeService(t, api.StatusAuthorized)
	fs.dropNext = 1
	h := newHarness(t, srv.URL, "sk_test_ae_sandbox")
	err := h.run(newCaptureCmd(h.f, nil), movedPaymentID, "--full")
	if err != nil {
		t.Fatalf("capture: %v\nstderr: %s", err, h.errOut)
	}
	if n := len(fs.payment.Captures); n != 1 {
		t.Fatalf("%d captures, want 1", n)
	}
	ref := fs.payment.Captures[0].ReferenceID
	stderr := h.errOut.String()
	if !strings.Contains(stderr, "reference_id: "+ref+" (re-run with --reference-id "+ref+" to retry safely)") {
		t.Errorf("the reference_id was not announced: %s", stderr)
	}
	if !strings.Contains(stderr, "the capture with reference_id "+ref+" was found already made") {
		t.Errorf("the reconciliation was not reported: %s", stderr)
	}
	if !strings.Contains(h.out.String(), "Status\tCLOSED") {
		t.Errorf("stdout: %s", h.out)
	}
	if n := fs.count("POST "); n != 2 {
		t.Errorf("%d POSTs, want 2 (the dropped one and its retry)", n)
	}
}

func TestCloseReconcilesADroppedConnection(t *testing.T) {
	fs, srv := newFakeService(t, api.StatusAuthorized)
	fs.dropNext = 1
	h := newHarness(t, srv.URL, "sk_test_ae_sandbox")
	if err := h.run(newCloseCmd(h.f, nil), movedPaymentID); err != nil {
		t.Fatalf("close: %v\nstderr: %s", err, h.errOut)
	}
	if !strings.Contains(h.errOut.String(), "found already closed") {
		t.Errorf("stderr: %s", h.errOut)
	}
}

func TestCaptureAboveRemainderSendsNothing(t *testing.T) {
	fs, srv := newFakeService(t, api.StatusAuthorized)
	h := newHarness(t, srv.URL, "sk_test_ae_sandbox")
	err := h.run(newCaptureCmd(h.f, nil), movedPaymentID, "--amount", "1250.01")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Fatalf("exit %d: %v", cmdutil.ExitCode(err), err)
	}
	if !strings.Contains(err.Error(), "only 1250.00 AED is left to capture") {
		t.Errorf("error: %v", err)
	}
	if n := fs.count("POST "); n != 0 {
		t.Errorf("%d POSTs sent", n)
	}
}

func TestCapturePreReadFailureIsReported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"status":"error","errorType":"no_permission","error":"merchant region does not match cluster region"}`))
	}))
	defer srv.Close()
	h := newHarness(t, srv.URL, "sk_test_ae_sandbox")
	err := h.run(newCaptureCmd(h.f, nil), movedPaymentID, "--amount", "1")
	if cmdutil.ExitCode(err) != cmdutil.ExitPermission {
		t.Fatalf("exit %d: %v", cmdutil.ExitCode(err), err)
	}
	var hinted interface{ Hint() string }
	if !errors.As(err, &hinted) || !strings.Contains(hinted.Hint(), `another region than "ae"`) {
		t.Errorf("hint does not name the region: %v", err)
	}
}

func TestLiveConfirmation(t *testing.T) {
	cases := []struct {
		name     string
		terminal bool
		yes      bool
		answer   string
		wantErr  bool
		wantGets int
		wantPost int
	}{
		{name: "no terminal, no --yes: nothing sent", wantErr: true},
		{name: "--yes skips the question", yes: true, wantGets: 1, wantPost: 1},
		{name: "terminal, yes", terminal: true, answer: "yes\n", wantGets: 1, wantPost: 1},
		{name: "terminal, no", terminal: true, answer: "no\n", wantErr: true, wantGets: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, srv := newFakeService(t, api.StatusAuthorized)
			fs.payment.IsTest = false
			h := newHarness(t, srv.URL, "sk_ae_sandbox")
			h.f.Global.Yes = c.yes
			h.f.IO.SetStdinTTY(c.terminal)
			h.f.IO.SetStderrTTY(c.terminal)
			h.in.WriteString(c.answer)
			err := h.run(newCaptureCmd(h.f, nil), movedPaymentID, "--amount", "100")
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v", err)
			}
			if err != nil && cmdutil.ExitCode(err) != cmdutil.ExitUsage {
				t.Errorf("exit %d", cmdutil.ExitCode(err))
			}
			if n := fs.count("GET "); n != c.wantGets {
				t.Errorf("%d reads, want %d", n, c.wantGets)
			}
			if n := fs.count("POST "); n != c.wantPost {
				t.Errorf("%d moves, want %d", n, c.wantPost)
			}
			if c.terminal {
				want := "LIVE: capture 100.00 AED on payment " + movedPaymentID + " of merchant ae-sandbox?"
				if !strings.Contains(h.errOut.String(), want) {
					t.Errorf("prompt %q missing from %q", want, h.errOut)
				}
			}
		})
	}
}

func TestMoveFlagErrors(t *testing.T) {
	_, srv := newFakeService(t, api.StatusAuthorized)
	cases := []struct {
		cmd  func(*cmdutil.Factory) *cobra.Command
		args []string
		want string
	}{
		{func(f *cmdutil.Factory) *cobra.Command { return newCaptureCmd(f, nil) }, []string{movedPaymentID}, "give --amount or --full"},
		{func(f *cmdutil.Factory) *cobra.Command { return newCaptureCmd(f, nil) }, []string{movedPaymentID, "--amount", "1", "--full"}, "exclude each other"},
		{func(f *cmdutil.Factory) *cobra.Command { return newCaptureCmd(f, nil) }, []string{"x", "--amount", "1"}, "not a UUID"},
		{func(f *cmdutil.Factory) *cobra.Command { return newCaptureCmd(f, nil) }, []string{movedPaymentID, "--amount", "1", "--journal", "j"}, "--journal applies only with --input"},
		{func(f *cmdutil.Factory) *cobra.Command { return newRefundCmd(f, nil) }, []string{"--from-file", "x.csv", "--reason", "r"}, "--reason does not apply with --input"},
		{func(f *cmdutil.Factory) *cobra.Command { return newCloseCmd(f, nil) }, []string{movedPaymentID, "--from-file", "x.csv"}, "exclude each other"},
		{func(f *cmdutil.Factory) *cobra.Command { return newCloseCmd(f, nil) }, nil, "needs a payment id, or --input"},
	}
	for _, c := range cases {
		h := newHarness(t, srv.URL, "sk_test_ae_sandbox")
		err := h.run(c.cmd(h.f), c.args...)
		if err == nil || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want exit 2 with %q", c.args, err, c.want)
		}
	}
}

func TestClassifyMoveError(t *testing.T) {
	refusal := &api.APIError{Status: 400, ErrorType: "bad_data", Message: "already closed"}
	status, errType, msg, unknown := classifyMoveError(refusal)
	if status != 400 || errType != "bad_data" || !strings.HasPrefix(msg, "already closed") || unknown {
		t.Errorf("refusal: %d %q %q %t", status, errType, msg, unknown)
	}
	if _, _, _, unknown := classifyMoveError(&api.APIError{Status: 502}); !unknown {
		t.Error("a 5xx after retries must be unknown")
	}
	if _, _, _, unknown := classifyMoveError(&api.NetworkError{Op: "POST x", Err: errors.New("connection reset")}); !unknown {
		t.Error("a network failure must be unknown")
	}
	v := &api.ValidationError{}
	v.Add("$.amount", "too many places")
	if _, _, _, unknown := classifyMoveError(v); unknown {
		t.Error("a local refusal is definite")
	}
	if _, _, _, unknown := classifyMoveError(errors.New("surprise")); !unknown {
		t.Error("anything else must be unknown, so a re-run sends it again")
	}
}
