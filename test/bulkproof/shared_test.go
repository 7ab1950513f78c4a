package bulkproof

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger/pgtest"
)

// machines are two state directories (two laptops) whose runs share one
// PostgreSQL ledger: w.env is the first's, with the ledger added; other
// the second's.
func (w *world) shareLedger(t *testing.T) (other []string) {
	t.Helper()
	url := pgtest.Get(t).NewDatabase(t)
	w.env = append(w.env, "BNPL_LEDGER="+url)
	other = append(bnplEnv(filepath.Join(w.dir, "laptop-b"), serverURL(w.env)), "GORACE=atexit_sleep_ms=0", "BNPL_LEDGER="+url)
	return other
}

// ledger is the ledger of w's runs: the shared one, or the first
// machine's.
func (w *world) ledger() ledgerAt {
	for _, kv := range w.env {
		if url, ok := strings.CutPrefix(kv, "BNPL_LEDGER="); ok {
			return pgLedger(url)
		}
	}
	return sqliteLedger(filepath.Join(w.dir, "home", ".state"))
}

// on runs fn with w's runs on the machine of env.
func (w *world) on(env []string, fn func()) {
	saved := w.env
	w.env = env
	defer func() { w.env = saved }()
	fn()
}

// summaries reads the JSON summary a run printed, if any, into w.moved.
func (w *world) summaryIfAny(name string, out []byte) {
	if bytes.Contains(out, []byte(`"op"`)) {
		w.countMoved(name, out)
	}
}

// textMoved adds to w.moved[name] what a run's text summary (on stderr)
// says it moved, and found moved by runs that ended before they could
// say so, in AED.
func (w *world) textMoved(name string, stderr []byte) {
	w.t.Helper()
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`; moved ([0-9.]+) AED`),
		regexp.MustCompile(`found moved by runs that ended before they recorded it ([0-9.]+) AED`),
	} {
		if m := re.FindSubmatch(stderr); m != nil {
			w.moved[name] = w.moved[name].Add(aed(string(m[1])))
		}
	}
	if !bytes.Contains(stderr, []byte(" rows: ")) {
		w.t.Fatalf("%s: no summary on stderr:\n%s", name, stderr)
	}
}

// checkSum: what every printed summary says moved adds up to what the
// service holds.
func (w *world) checkSum() {
	w.t.Helper()
	said := decimal.Zero
	for _, d := range w.moved {
		said = said.Add(d)
	}
	captured := w.captured()
	w.t.Logf("captured %s; the summaries said moved %s", captured, said)
	if !said.Equal(captured) {
		w.t.Errorf("the runs say they moved %s; the payments hold %s", said, captured)
	}
}

// Two laptops run one file at once, sharing a PostgreSQL ledger: a run
// waiting for a payment the other holds names it (its machine and
// process), the money moves once, and what the summaries say they moved
// adds up to what the service holds, faults or not.
func TestTwoMachinesSharingAPostgresLedgerMoveOnce(t *testing.T) {
	pgtest.Require(t)
	for _, tc := range []struct {
		name   string
		faults string
	}{{"no faults", "latency=1ms"}, {"faults", "500-after=0.06,drop-after=0.06,latency=2ms"}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.faults, proofSeed+23)
			laptopB := w.shareLedger(t)
			caps := capturesFile(t, w.dir, w.plan)

			var aliceOut, aliceErr, bobOut bytes.Buffer
			// (At --rate 0.5 she holds a payment four seconds of each
			// turn of one: carol meets her there, not as she passes from
			// one payment to the next, however loaded the machine.)
			alice := w.cmd("capture", caps, "alice", "--rate", "0.5", "--concurrency", "1", "-o", "json")
			alice.Stdout, alice.Stderr = &aliceOut, &aliceErr
			if err := alice.Start(); err != nil {
				t.Fatal(err)
			}
			aliceDone := make(chan int, 1)
			go func() { aliceDone <- exitCode(alice.Wait()) }()
			if code, ended := waitHolding(w.ledger(), alice, aliceDone); ended {
				t.Fatalf("alice ended (exit %d) before she settled a row\n%s", code, tail(aliceErr.String()))
			}
			// Carol, on the other laptop, meets the payment alice holds
			// and says whose it is (notices are not written under -o
			// json); stopped while she waits, she sent nothing.
			carol := w.cmd("capture", caps, "carol", "--concurrency", "1")
			carol.Env = laptopB
			errPath := filepath.Join(w.dir, "carol.err")
			host, _ := os.Hostname()
			carolDone := waitsFor(t, carol, errPath, alice.Process.Pid, host)
			_ = carol.Process.Signal(syscall.SIGTERM)
			if code := <-carolDone; code != 143 {
				t.Fatalf("carol stopped while she waited: exit %d", code)
			}
			// Before she met alice's claim she may have run rows alice
			// had not reached (a worker's turn takes some of a payment's
			// rows): what her summary says she moved counts too.
			b, _ := os.ReadFile(errPath)
			w.textMoved("carol", b)

			// Bob, on the other laptop, runs the file to its end while
			// alice goes on.
			bob := w.cmd("capture", caps, "bob", "-o", "json")
			bob.Env = laptopB
			bob.Stdout = &bobOut
			bobCode := exitCode(bob.Run())
			_ = alice.Process.Signal(syscall.SIGTERM)
			aliceCode := <-aliceDone
			t.Logf("alice (stopped) exit %d, bob exit %d", aliceCode, bobCode)
			w.summaryIfAny("alice", aliceOut.Bytes())
			w.summaryIfAny("bob", bobOut.Bytes())

			report := w.finish("capture", caps, "alice")
			w.on(laptopB, func() { w.finish("capture", caps, "bob") })
			w.checkCapturedOnce(report)
			w.checkSum()
		})
	}
}

// A run killed on one laptop is run on the other (the same ledger) and
// then resumed on the first: the money moves once, the killed run's moves
// are counted by the run that finds them, once.
func TestAKilledRunResumedOnAnotherMachineAddsUp(t *testing.T) {
	pgtest.Require(t)
	w := newWorld(t, "500-after=0.06,drop-after=0.06,latency=2ms", proofSeed+29)
	laptopB := w.shareLedger(t)
	caps := capturesFile(t, w.dir, w.plan)
	killed := w.cmd("capture", caps, "killed")
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- exitCode(killed.Wait()) }()
	if code, finished := waitResults(w.ledger(), killed, 1+len(w.plan), done); finished {
		t.Fatalf("the run finished (exit %d) before it could be killed", code)
	}
	_ = killed.Process.Signal(syscall.SIGKILL)
	<-done
	w.on(laptopB, func() { w.finish("capture", caps, "other") })
	report := w.finish("capture", caps, "killed")
	w.checkCapturedOnce(report)
	w.checkSum()
}

// The database restarts while a run sends: the run stops (exit 12, its
// session and so its claims gone), and the same command run again resumes
// it; the money moves once, and the summaries add up.
func TestADatabaseRestartedMidRunStopsAndResumes(t *testing.T) {
	srv := pgtest.Get(t)
	w := newWorld(t, "latency=2ms", proofSeed+31)
	w.shareLedger(t)
	caps := capturesFile(t, w.dir, w.plan)
	var out, stderr bytes.Buffer
	c := w.cmd("capture", caps, "cap", "--rate", "20", "-o", "json")
	c.Stdout, c.Stderr = &out, &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- exitCode(c.Wait()) }()
	code, ended := waitResults(w.ledger(), c, 1, done)
	if ended {
		t.Fatalf("the run ended (exit %d) before it settled a row\n%s", code, tail(stderr.String()))
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	code = <-done
	t.Logf("the run across the restart: exit %d\n%s", code, tail(stderr.String()))
	if code != 12 && code != 0 {
		t.Fatalf("the run across the restart: exit %d, want 12 (or 0 had it finished first)", code)
	}
	if code == 12 && !strings.Contains(stderr.String(), "postgres 127.0.0.1:") {
		t.Errorf("the stop does not name the database:\n%s", stderr.String())
	}
	w.summaryIfAny("cap-restarted", out.Bytes())
	report := w.finish("capture", caps, "cap")
	w.checkCapturedOnce(report)
	w.checkSum()
}

// waitsFor starts c, its stderr written to errPath, and waits until it
// says it waits for a payment the run of process holder holds (on host,
// when host is not ""); it answers c's exit code, once it ends.
func waitsFor(t *testing.T, c *exec.Cmd, errPath string, holder int, host string) chan int {
	t.Helper()
	f, err := os.Create(errPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	c.Stderr = f
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- exitCode(c.Wait()) }()
	on := ""
	if host != "" {
		on = " on " + regexp.QuoteMeta(host)
	}
	named := regexp.MustCompile(`waiting for payment \S+, held by another bnpl run \d+ \(process ` +
		regexp.QuoteMeta(itoa(holder)) + on + `, capture of `)
	waitForMatch(t, errPath, named, done)
	return done
}

// waitForMatch waits until the file at path holds a line matching re;
// it fails t if the run writing it ends first (done), or after a minute.
func waitForMatch(t *testing.T, path string, re *regexp.Regexp, done chan int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(path)
		if re.Match(b) {
			return
		}
		select {
		case code := <-done:
			done <- code
			b, _ = os.ReadFile(path)
			if !re.Match(b) {
				t.Fatalf("the run ended (exit %d) and no line matched %s:\n%s", code, re, b)
			}
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
	b, _ := os.ReadFile(path)
	t.Fatalf("no line matched %s in a minute:\n%s", re, b)
}

func itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }
