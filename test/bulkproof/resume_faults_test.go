package bulkproof

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/sandbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
)

// The oldest bulk check: 60 payments, a capture of 40.00 and one of 60.00
// on each, a sandbox failing 6% of requests each way (500 before and
// after the commit, an answer dropped, a lock, a 429) with 5 ms of
// latency, the client's default retries; the run is interrupted part-way
// and resumed once. The resume must finish (exit 0) with each payment
// holding its two captures: a row a lock or a lost answer left unknown is
// settled by the run itself, since the service answers reads.
const oldestFaults = "500-before=0.06,500-after=0.06,drop-after=0.06,lock=0.06,429=0.06,latency=5ms,retry-after=0"

// oldestRounds is how many times the check runs, each on payments of its
// own (fewer under -race, whose binaries are slower).
var oldestRounds = map[bool]int{false: 4, true: 2}[raceEnabled]

func TestAnInterruptedRunUnderEveryFaultFinishesOnOneResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bnpl and runs it against a sandbox; skipped with -short")
	}
	bin := sharedBnpl(t)
	sb, srv, dir, env := faultySandbox(t, oldestFaults)
	const payments = 60
	finished := 0
	for round := range oldestRounds {
		plan := planPayments(t, sb, srv.URL, payments)
		var b strings.Builder
		b.WriteString("payment_id,amount\n")
		for _, p := range plan {
			fmt.Fprintf(&b, "%s,40.00\n%s,60.00\n", p.id, p.id)
		}
		name := fmt.Sprintf("oldest-%d", round)
		input := filepath.Join(dir, name+".csv")
		if err := os.WriteFile(input, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		run := func() *exec.Cmd {
			c := exec.Command(bin, "payments", "capture", "--input", input)
			c.Env, c.Dir = env, dir
			return c
		}
		// Interrupted once the ledger records outcomes of a third of the
		// rows.
		first := run()
		var firstErr bytes.Buffer
		first.Stderr = &firstErr
		if err := first.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan int, 1)
		go func() { done <- exitCode(first.Wait()) }()
		if code, ended := waitResults(sqliteLedger(filepath.Join(dir, "home", ".state")), first, 2*payments/3, done); ended {
			t.Fatalf("%s ended (exit %d) before it was interrupted\n%s", name, code, tail(firstErr.String()))
		}
		_ = first.Process.Signal(syscall.SIGINT)
		if code := <-done; code != 130 {
			t.Fatalf("%s interrupted: exit %d, want 130\n%s", name, code, tail(firstErr.String()))
		}
		var stderr bytes.Buffer
		resume := run()
		resume.Stderr = &stderr
		if code := exitCode(resume.Run()); code != 0 {
			report, _ := os.ReadFile(input + ".report.csv")
			var failed []string
			for _, line := range strings.Split(string(report), "\n") {
				if strings.Contains(line, ",failed,") || strings.Contains(line, ",unknown,") {
					failed = append(failed, line)
				}
			}
			t.Errorf("%s resumed once: exit %d, want 0\n%s\nrows not settled:\n%s", name, code, tail(stderr.String()), strings.Join(failed, "\n"))
			continue
		}
		get := verifier(t, srv.URL)
		for _, p := range plan {
			got := get(p.id)
			if len(got.Captures) != 2 || !got.Captured().Equal(decimal.NewFromInt(100)) {
				t.Errorf("%s: payment %s holds %d captures, %s captured; want 2, 100", name, p.id, len(got.Captures), got.Captured())
			}
		}
		finished++
	}
	t.Logf("the oldest check: %d of %d interrupted runs finished on one resume; faults %v", finished, oldestRounds, sb.FaultCounts())
}

// faultsOf is how many faults sb injected, in all and of each kind.
func faultsOf(sb *sandbox.Sandbox) (int, map[middleware.FaultKind]int) {
	counts := sb.FaultCounts()
	total := 0
	for _, n := range counts {
		total += n
	}
	return total, counts
}

// faultySandbox serves, for t, an in-memory sandbox failing as faults
// says, and answers it, its server, a working directory and the
// environment a bnpl run there takes.
func faultySandbox(t *testing.T, faults string) (*sandbox.Sandbox, *httptest.Server, string, []string) {
	t.Helper()
	spec, err := sandbox.ParseFaultSpec(faults)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Options{Faults: spec})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb.Handler("ae"))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); sb.Close() })
	dir := t.TempDir()
	return sb, srv, dir, append(bnplEnv(dir, srv.URL), "GORACE=atexit_sleep_ms=0")
}
