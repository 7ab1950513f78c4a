package sandbox

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

const serveHelperEnv = "BNPL_SANDBOX_TEST_SERVE"

// TestHelperServeProcess is not a test: the hand-over tests run the test
// binary again with serveHelperEnv set (STATE|AE_ADDR|SA_ADDR) to have a
// real server process they can stop with SIGTERM or kill.
func TestHelperServeProcess(t *testing.T) {
	spec := os.Getenv(serveHelperEnv)
	if spec == "" {
		t.Skip("helper process for the hand-over tests")
	}
	parts := strings.Split(spec, "|")
	err := Serve(context.Background(), ServeOptions{AEAddr: parts[1], SAAddr: parts[2],
		Options: Options{StatePath: parts[0], AllowLocalWebhooks: true, NoRequestLog: true}}, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
}

// startServer runs a server process on the state at path and returns once
// it holds the state (its lease is there).
func startServer(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServeProcess$", "-test.count=1")
	// Ports of its own choosing: a port found free here could be taken
	// before the server binds it.
	cmd.Env = append(os.Environ(), serveHelperEnv+"="+path+"|127.0.0.1:0|127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// The banner follows the announcement of the lease.
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), "bnpl sandbox is running") {
			go func() {
				for lines.Scan() {
				}
			}()
			return cmd
		}
	}
	t.Fatalf("the server process ended before it served: %v", lines.Err())
	return nil
}

// served reads whether a live process serves the state.
func served(t *testing.T, db *sql.DB) bool {
	t.Helper()
	_, ok := outbox.ServedBy(context.Background(), db, "")
	return ok
}

// A server stopped by SIGTERM stops cleanly: it exits 0, gives its lease up
// at once, and a command right after it delivers what it records itself
// rather than leaving it for a server that is gone.
func TestServerStoppedBySIGTERMHandsDeliveryOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	srv := startServer(t, path)
	hook := newHookReceiver(t, nil)
	e := newEnv(t, Options{StatePath: path, Clock: store.RealClock{}})
	e.registerPaymentHook(aeTest, hook.srv.URL+"/hook", nil)
	s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
	if _, err := e.sb.Approve(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	hook.wait(t, 1) // the server delivers while it serves
	if !served(t, e.sb.DB) {
		t.Fatal("no server holds the state")
	}

	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.Wait(); err != nil {
		t.Fatalf("the server did not stop cleanly on SIGTERM: %v", err)
	}
	if served(t, e.sb.DB) {
		t.Fatal("the stopped server still holds the state")
	}
	if r := e.do("ae", "POST", "/api/v2/payments/"+s.Payment.ID+"/captures", aeTest, map[string]any{"amount": "20.00"}); r.status != 200 {
		t.Fatalf("capture: %d %s", r.status, r.body)
	}
	rep, err := e.sb.Shutdown()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Served || rep.Pending != 0 {
		t.Fatalf("the command left its delivery: %+v", rep)
	}
	if got := hook.wait(t, 2); !strings.Contains(string(got[1].body), `"captures":[{`) {
		t.Fatalf("second delivery: %s", got[1].body)
	}
}

// A deliverer killed mid-attempt holds its claim for at most outbox.ClaimLease:
// its lease on the row is short (renewed while it works), its server
// lease is ignored once its process is gone, and another process sends
// the notification again.
func TestKilledDelivererClaimsLapseWithinTheLease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	srv := startServer(t, path)
	attempted := make(chan struct{}, 1)
	hook := newHookReceiver(t, func(n int, r *http.Request) int {
		if n == 0 {
			attempted <- struct{}{}
			<-r.Context().Done() // the server's attempt hangs until it dies
		}
		return http.StatusOK
	})
	e := newEnv(t, Options{StatePath: path, Clock: store.RealClock{}})
	e.registerPaymentHook(aeTest, hook.srv.URL+"/hook", nil)
	s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
	if _, err := e.sb.Approve(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-attempted:
	case <-time.After(30 * time.Second):
		t.Fatal("the server made no attempt")
	}
	var until int64
	if err := e.sb.DB.QueryRow(`SELECT lease_until FROM deliveries WHERE status = 'pending'`).Scan(&until); err != nil {
		t.Fatal(err)
	}
	if left := time.Until(time.Unix(0, until)); left > outbox.ClaimLease {
		t.Fatalf("a claim holds the row for %s, more than the documented %s", left.Round(time.Second), outbox.ClaimLease)
	}
	if err := srv.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := srv.Wait(); !errors.As(err, &exit) {
		t.Fatalf("kill: %v", err)
	}
	if served(t, e.sb.DB) {
		t.Fatal("the killed server's lease still counts")
	}
	// This process delivers once the claim lapses.
	deadline := time.After(60 * time.Second)
	for {
		hook.mu.Lock()
		n := len(hook.got)
		hook.mu.Unlock()
		if n >= 2 {
			break
		}
		select {
		case <-hook.notify:
		case <-deadline:
			t.Fatalf("the notification was not sent again after its claimer died (%d attempts)", n)
		}
	}
	if rep, err := e.sb.Shutdown(); err != nil || rep.Pending != 0 {
		t.Fatalf("left: %+v %v", rep, err)
	}
}
