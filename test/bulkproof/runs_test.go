package bulkproof

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger/pgtest"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// The tests here prove the promises that hold across runs: two runs of one
// file at once, or one after the other with the ledger deleted in
// between, move each row's money once; and a run killed (or stopped with
// SIGTERM) at random points resumes to every row done and exit 0.

const (
	// Small, so the three tests together stay within a few seconds (tens
	// under -race on 2 cores): the 250-payment proof covers volume.
	runsPayments = 30
	// Faults for the concurrent runs: every kind, at a rate that leaves
	// each run a few rows to finish with --retry-failed.
	runsFaults = "500-before=0.04,500-after=0.04,drop-after=0.04,lock=0.04,429=0.04,latency=1ms,retry-after=0"
)

var (
	sharedBin     string
	sharedBinErr  error
	sharedBinOnce sync.Once
	sharedBinDir  string
)

// sharedBnpl builds the binary once for every test of this file.
func sharedBnpl(t *testing.T) string {
	t.Helper()
	sharedBinOnce.Do(func() {
		sharedBinDir, sharedBinErr = os.MkdirTemp("", "bulkproof-bin-")
		if sharedBinErr != nil {
			return
		}
		sharedBin = filepath.Join(sharedBinDir, "bnpl")
		args := []string{"build", "-o", sharedBin}
		if raceEnabled {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, "github.com/bnpl-cli/bnpl")...).CombinedOutput()
		if err != nil {
			sharedBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if sharedBinErr != nil {
		t.Fatal(sharedBinErr)
	}
	return sharedBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Done()
	if sharedBinDir != "" {
		os.RemoveAll(sharedBinDir)
	}
	os.Exit(code)
}

// world is a sandbox with planned payments and a bnpl to run against it.
type world struct {
	t    *testing.T
	sb   *sandbox.Sandbox
	bin  string
	dir  string
	env  []string
	plan []*plannedPayment
	// moved sums, per run name, what each run's summary said it
	// moved (its "moved" in -o json).
	moved map[string]decimal.Decimal
}

func newWorld(t *testing.T, faults string, seed int64) *world {
	t.Helper()
	if testing.Short() {
		t.Skip("builds bnpl and runs it against a sandbox; skipped with -short")
	}
	return openWorld(t, faults, sandbox.Options{Seed: seed}, runsPayments)
}

// openWorld serves a sandbox made with opts and the faults of the spec
// faults, and plans payments of it.
func openWorld(t *testing.T, faults string, opts sandbox.Options, payments int) *world {
	t.Helper()
	bin := sharedBnpl(t)
	spec, err := sandbox.ParseFaultSpec(faults)
	if err != nil {
		t.Fatal(err)
	}
	opts.Faults = spec
	sb, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb.Handler("ae"))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); sb.Close() })
	dir := t.TempDir()
	w := &world{t: t, sb: sb, bin: bin, dir: dir, env: append(bnplEnv(dir, srv.URL), "GORACE=atexit_sleep_ms=0"), moved: map[string]decimal.Decimal{}}
	w.plan = planPayments(t, sb, srv.URL, payments)
	return w
}

// cmd is a bulk run of op over input with a report of its own.
func (w *world) cmd(op, input, name string, extra ...string) *exec.Cmd {
	args := append([]string{"payments", op, "--from-file", input,
		"--report", filepath.Join(w.dir, name+".report.csv"),
		"--retries", strconv.Itoa(clientRetries)}, extra...)
	if op != "close" {
		// The plan writes identical rows on purpose: each is a move.
		args = append(args, "--allow-repeats")
	}
	c := exec.Command(w.bin, args...)
	c.Env, c.Dir = w.env, w.dir
	return c
}

// finish runs op to exit 0 (each run resuming the ledger's record of the
// ones before it), its report the named one, with --retry-failed
// after a run that left rows failed for a reason a fault explains.
func (w *world) finish(op, input, name string, flags ...string) map[int]reportRow {
	t := w.t
	t.Helper()
	extra := flags
	for i := range maxResumes {
		var stdout, stderr bytes.Buffer
		c := w.cmd(op, input, name, append([]string{"-o", "json"}, extra...)...)
		c.Stdout, c.Stderr = &stdout, &stderr
		code := exitCode(c.Run())
		w.countMoved(name, stdout.Bytes())
		report := readReport(t, filepath.Join(w.dir, name+".report.csv"))
		if code == 0 {
			return report
		}
		if code != 10 && code != 11 {
			t.Fatalf("%s %s run %d: exit %d\n%s", op, name, i+1, code, tail(stderr.String()))
		}
		for _, row := range report {
			if row.Outcome != "failed" {
				continue
			}
			transient := row.HTTPStatus == 0 && row.ErrorType == "" || row.HTTPStatus == 429 || row.HTTPStatus >= 500 ||
				(row.HTTPStatus == 409 && strings.Contains(row.Message, "payment is locked"))
			if !transient {
				t.Fatalf("%s %s line %d failed for a reason no fault explains: %d %s %s", op, name, row.Line, row.HTTPStatus, row.ErrorType, row.Message)
			}
		}
		extra = append(append([]string(nil), flags...), "--retry-failed")
	}
	t.Fatalf("%s %s did not complete in %d runs", op, name, maxResumes)
	return nil
}

// checkCapturedOnce reads every payment through the API: each planned
// capture is there exactly once, under the reference_id the report names,
// and nothing else is.
func (w *world) checkCapturedOnce(report map[int]reportRow) {
	t := w.t
	t.Helper()
	get := verifier(t, serverURL(w.env))
	refs := map[string]int{}
	for _, p := range w.plan {
		pay := get(p.id)
		shown := map[string][]decimal.Decimal{}
		for _, c := range pay.Captures {
			shown[c.ReferenceID] = append(shown[c.ReferenceID], c.Amount)
		}
		checkMoves(t, "capture", p.captures, shown, report, refs)
		want := p.amount
		if p.partial {
			want = p.amount.Sub(aed("1.00"))
		}
		if !pay.Captured().Equal(want) {
			t.Errorf("payment %s: captured %s, want %s", p.id, pay.Captured(), want)
		}
	}
}

// countMoved adds to w.moved[name] what a run's JSON summary (out) says it
// moved, in AED, and what it found moved by runs that ended before they
// could say so (killed in flight).
func (w *world) countMoved(name string, out []byte) {
	w.t.Helper()
	var sum struct {
		Op    string            `json:"op"`
		Moved map[string]string `json:"moved"`
		Ended map[string]string `json:"moved_by_ended_runs"`
	}
	if err := json.Unmarshal(out, &sum); err != nil || sum.Op == "" {
		w.t.Fatalf("%s: no JSON summary on stdout (%v): %q", name, err, out)
	}
	for cur, amt := range sum.Ended {
		d, err := decimal.NewFromString(amt)
		if err != nil || cur != "AED" {
			w.t.Fatalf("%s: moved by ended runs %s %s", name, amt, cur)
		}
		w.moved[name] = w.moved[name].Add(d)
	}
	for cur, amt := range sum.Moved {
		d, err := decimal.NewFromString(amt)
		if err != nil || cur != "AED" {
			w.t.Fatalf("%s: moved %s %s", name, amt, cur)
		}
		w.moved[name] = w.moved[name].Add(d)
	}
}

// captured is what the payments of the plan hold, read through the API.
func (w *world) captured() decimal.Decimal {
	get := verifier(w.t, serverURL(w.env))
	total := decimal.Zero
	for _, p := range w.plan {
		total = total.Add(get(p.id).Captured())
	}
	return total
}

func serverURL(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "BNPL_BASE_URL="); ok {
			return v
		}
	}
	return ""
}

// Two runs of one file at once both go on: the ledger's claims keep each
// payment's moves to one run at a time, so the second waits for a payment
// the first holds and names it (its process); each payment is captured
// once, and what every run's summary says it moved adds up to what the
// payments hold.
func TestTwoRunsOfOneFileAtOnceCaptureOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults string
	}{{"no faults", "latency=1ms"}, {"faults", runsFaults}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.faults, proofSeed+7)
			caps := capturesFile(t, w.dir, w.plan)

			// A slow run, and the same file run again while it goes on:
			// the second meets a payment the first holds and waits,
			// naming it (notices are not written under -o json).
			var holderOut, holderErr bytes.Buffer
			// (At --rate 0.5 it holds a payment four seconds of each turn
			// of one: the second meets it there, not as it passes from
			// one payment to the next, however loaded the machine.)
			holder := w.cmd("capture", caps, "holder", "--rate", "0.5", "--concurrency", "1", "-o", "json")
			holder.Stdout, holder.Stderr = &holderOut, &holderErr
			if err := holder.Start(); err != nil {
				t.Fatal(err)
			}
			holderDone := make(chan int, 1)
			go func() { holderDone <- exitCode(holder.Wait()) }()
			if code, ended := waitHolding(w.ledger(), holder, holderDone); ended {
				t.Fatalf("the first run ended (exit %d) before it settled a row\n%s", code, tail(holderErr.String()))
			}
			second := w.cmd("capture", caps, "second", "--concurrency", "1")
			errPath := filepath.Join(w.dir, "second.err")
			secondDone := waitsFor(t, second, errPath, holder.Process.Pid, "")
			// The first stopped (SIGTERM, its summary written), the second
			// goes on to its end.
			_ = holder.Process.Signal(syscall.SIGTERM)
			if code := <-holderDone; code != 143 {
				t.Fatalf("the first run after SIGTERM: exit %d, want 143\n%s", code, tail(holderErr.String()))
			}
			w.summaryIfAny("holder", holderOut.Bytes())
			if code := <-secondDone; code != 0 && code != 10 && code != 11 {
				b, _ := os.ReadFile(errPath)
				t.Fatalf("the second run: exit %d\n%s", code, tail(string(b)))
			}
			b, _ := os.ReadFile(errPath)
			w.textMoved("second", b)

			// Two more runs, started together, as a CI retry overlapping
			// a slow job would be: both go on, neither refused.
			var wg sync.WaitGroup
			codes := make([]int, 2)
			outs, errs := make([]bytes.Buffer, 2), make([]bytes.Buffer, 2)
			for i, name := range []string{"a", "b"} {
				c := w.cmd("capture", caps, name, "-o", "json")
				c.Stdout, c.Stderr = &outs[i], &errs[i]
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				wg.Add(1)
				go func() { defer wg.Done(); codes[i] = exitCode(c.Wait()) }()
			}
			wg.Wait()
			t.Logf("concurrent runs ended: exits %v", codes)
			for i, code := range codes {
				if code != 0 && code != 10 && code != 11 {
					t.Fatalf("concurrent run %d: exit %d\n%s", i, code, tail(errs[i].String()))
				}
				w.countMoved([]string{"a", "b"}[i], outs[i].Bytes())
			}
			a := w.finish("capture", caps, "a")
			b2 := w.finish("capture", caps, "b")
			w.finish("capture", caps, "holder")
			for line, row := range a {
				if b2[line].ReferenceID != row.ReferenceID {
					t.Errorf("line %d: run a sent reference_id %s, run b %s", line, row.ReferenceID, b2[line].ReferenceID)
				}
			}
			w.checkCapturedOnce(a)
			w.checkSum()
		})
	}
}

// Two people run one file at once: the runs claim each payment in the ledger before they send its moves, so
// one waits for the other (the scripts check that it names it); the money
// moves once, and what the
// runs' summaries say they moved adds up to what the payments hold, to
// the last fil, faults or not (a run counts only what its own claimed
// sends moved; a move whose answer a run lost is settled by the next read
// of its payment, by the run that sent it, or by a later run for it).
func TestTwoRunsOfOneFileMovedAddsUp(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults string
	}{{"no faults", "latency=1ms"}, {"faults", runsFaults}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.faults, proofSeed+17)
			caps := capturesFile(t, w.dir, w.plan)

			var aliceOut, aliceErr, bobOut, bobErr bytes.Buffer
			alice := w.cmd("capture", caps, "alice", "--rate", "40", "-o", "json")
			alice.Stdout, alice.Stderr = &aliceOut, &aliceErr
			if err := alice.Start(); err != nil {
				t.Fatal(err)
			}
			aliceDone := make(chan int, 1)
			go func() { aliceDone <- exitCode(alice.Wait()) }()
			if code, ended := waitResults(w.ledger(), alice, 1, aliceDone); ended {
				t.Fatalf("alice ended (exit %d) before she settled a row\n%s", code, tail(aliceErr.String()))
			}
			bob := w.cmd("capture", caps, "bob", "-o", "json")
			bob.Stdout, bob.Stderr = &bobOut, &bobErr
			bobCode := exitCode(bob.Run())
			aliceCode := <-aliceDone
			for who, code := range map[string]int{"alice": aliceCode, "bob": bobCode} {
				if code != 0 && code != 10 && code != 11 {
					t.Fatalf("%s: exit %d\n%s%s", who, code, tail(aliceErr.String()), tail(bobErr.String()))
				}
			}
			w.countMoved("alice", aliceOut.Bytes())
			w.countMoved("bob", bobOut.Bytes())
			t.Logf("alice moved %s, bob %s, at once", w.moved["alice"], w.moved["bob"])

			// Each finishes the file: what is left was left by faults,
			// and every move is made once.
			report := w.finish("capture", caps, "alice")
			w.finish("capture", caps, "bob")
			w.checkCapturedOnce(report)
			captured, said := w.captured(), w.moved["alice"].Add(w.moved["bob"])
			t.Logf("captured %s; the summaries said moved %s", captured, said)
			if !said.Equal(captured) {
				t.Errorf("the runs say they moved %s; the payments hold %s", said, captured)
			}
		})
	}
}

// The ledger deleted after a run: the state directory still names it, so
// the same file run again stops (exit 12) with nothing sent, naming
// --ledger-lost; with it, the run moves nothing twice: what the first run
// moved is held before, counted apart from what it moved, and the run
// warns that money of the file was moved outside its ledger.
func TestDeletedLedgerCapturesNothingTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bnpl and runs it against a sandbox; skipped with -short")
	}
	sb, srv, dir, env := faultySandbox(t, runsFaults)
	file, plan := twoCaptures(t, sb, srv.URL, dir, "caps.csv")
	m := newMachine(t, sharedBnpl(t), dir, env, "laptop")
	first := m.finish(file)
	h := held(t, srv.URL, plan)
	if !first.reported.Equal(h) {
		t.Fatalf("the first run says it moved %s; the payments hold %s", first.reported, h)
	}
	db := filepath.Join(m.dir, "state", "bnpl", "bulk-ledger.db")
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"-wal", "-shm"} {
		if err := os.Remove(db + side); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	stopped := m.command(file)
	stopped.Stderr = &stderr
	if code := exitCode(stopped.Run()); code != 12 || !strings.Contains(stderr.String(), "--ledger-lost") {
		t.Fatalf("run again without its ledger: exit %d, want 12 naming --ledger-lost\n%s", code, tail(stderr.String()))
	}
	if got := held(t, srv.URL, plan); !got.Equal(h) {
		t.Fatalf("the stopped run moved money: the payments hold %s, held %s before", got, h)
	}
	m.flags = []string{"--ledger-lost"}
	again := m.finish(file)
	if got := held(t, srv.URL, plan); !got.Equal(h) || !again.reported.IsZero() || !again.heldBefore.Equal(h) || !again.warned {
		t.Errorf("run again without its ledger: moved %s, held before %s, warned %v; the payments hold %s, held %s before",
			again.reported, again.heldBefore, again.warned, got, h)
	}
	get := verifier(t, srv.URL)
	for _, p := range plan {
		if caps := get(p.id).Captures; len(caps) != 2 {
			t.Errorf("payment %s holds %d captures, want 2", p.id, len(caps))
		}
	}
}

func TestKilledRunsResumeToEveryRowDone(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill points from seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 13))

	w := newWorld(t, "latency=2ms", proofSeed+13)
	caps := capturesFile(t, w.dir, w.plan)
	w.killAndResume("capture", caps, len(w.plan)*capturesPerPayment, rng)
	w.checkCapturedOnce(readReport(t, filepath.Join(w.dir, "capture.report.csv")))

	// Every payment of another world closed, two at a time, so that the
	// stops find closes in flight.
	w = newWorld(t, "latency=5ms", proofSeed+17)
	for _, p := range w.plan {
		p.partial = true
	}
	closes := closesFile(t, w.dir, w.plan)
	w.killAndResume("close", closes, len(w.plan), rng, "--concurrency", "2")
	get := verifier(t, serverURL(w.env))
	for _, p := range w.plan {
		if pay := get(p.id); pay.Status != "CLOSED" {
			t.Errorf("payment %s is %s after the closes", p.id, pay.Status)
		}
	}
}

// killAndResume stops a run of op at random points, by SIGKILL or SIGTERM
// in turn, then resumes it once: that run must end with every row done
// and exit 0, with no --retry-failed.
func (w *world) killAndResume(op, input string, rows int, rng *rand.Rand, extra ...string) {
	t := w.t
	t.Helper()
	stopped := 0
	for k, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGKILL} {
		at := 1 + rng.IntN(max(rows/3, 1))
		var stderr bytes.Buffer
		c := w.cmd(op, input, op, extra...)
		c.Stderr = &stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan int, 1)
		go func() { done <- exitCode(c.Wait()) }()
		code, finished := waitResults(w.ledger(), c, at, done)
		if !finished {
			_ = c.Process.Signal(sig)
			select {
			case code = <-done:
			case <-time.After(30 * time.Second):
				_ = c.Process.Kill()
				t.Fatalf("%s did not stop after %s\n%s", op, sig, tail(stderr.String()))
			}
		}
		want := map[syscall.Signal]int{syscall.SIGKILL: -1, syscall.SIGTERM: 143}[sig]
		switch {
		case finished && code == 0:
			t.Logf("%s stop %d: finished before %d results", op, k+1, at)
		case finished || code != want:
			t.Fatalf("%s stop %d (%s at %d results): exit %d\n%s", op, k+1, sig, at, code, tail(stderr.String()))
		default:
			stopped++
			t.Logf("%s stop %d: %s at %d results", op, k+1, sig, at)
		}
		if sig == syscall.SIGTERM && !finished {
			// SIGTERM writes the report, as Ctrl-C does.
			for _, row := range readReport(t, filepath.Join(w.dir, op+".report.csv")) {
				if row.Outcome == "" {
					t.Fatalf("%s after SIGTERM: line %d has no outcome", op, row.Line)
				}
			}
		}
	}
	if stopped == 0 {
		t.Fatalf("%s: every run finished before its stop: no stop was tested", op)
	}
	var stderr bytes.Buffer
	c := w.cmd(op, input, op, extra...)
	c.Stderr = &stderr
	if code := exitCode(c.Run()); code != 0 {
		t.Fatalf("%s resumed after the stops: exit %d, want 0\n%s", op, code, tail(stderr.String()))
	}
	for line, row := range readReport(t, filepath.Join(w.dir, op+".report.csv")) {
		if row.Outcome != "ok" && row.Outcome != "reconciled" {
			t.Errorf("%s line %d: %s %s", op, line, row.Outcome, row.Message)
		}
	}
}

// waitUntil waits until reached says so or the run ends (done).
func waitUntil(done <-chan int, reached func() bool) (code int, finished bool) {
	for {
		select {
		case code := <-done:
			return code, true
		case <-time.After(2 * time.Millisecond):
		}
		if reached() {
			return 0, false
		}
	}
}

// A CSV saved in Windows-1252 (Excel's default): without
// --input-encoding it is refused whole before anything is sent, naming the
// row and the byte; with it, the service stores the ids converted to
// UTF-8, exactly as a later run (or a person) will look them up.
func TestWindows1252FileMovesUnderTheConvertedIDs(t *testing.T) {
	w := newWorld(t, "latency=1ms", proofSeed+19)
	header := "payment_id,amount,reference_id\n"
	var file bytes.Buffer
	file.WriteString(header)
	offset := -1
	for i, p := range w.plan[:5] {
		row := fmt.Sprintf("%s,10.00,ORDER-Caf", p.id)
		if i == 0 {
			offset = len(header) + len(row)
		}
		fmt.Fprintf(&file, "%s\xe9-%d\n", row, i) // é in Windows-1252
	}
	input := filepath.Join(w.dir, "excel.csv")
	if err := os.WriteFile(input, file.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	var stderr bytes.Buffer
	c := w.cmd("capture", input, "plain")
	c.Stderr = &stderr
	code := exitCode(c.Run())
	want := fmt.Sprintf("line 2: the byte at offset %d of the file (0xE9) is not UTF-8", offset)
	if code != 2 || !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "nothing was sent") {
		t.Fatalf("exit %d, want 2 and %q:\n%s", code, want, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(w.dir, "plain.journal")); !os.IsNotExist(err) {
		t.Errorf("a journal was opened: %v", err)
	}
	if got := w.captured(); !got.IsZero() {
		t.Fatalf("captured %s from a refused file", got)
	}

	w.finish("capture", input, "converted", "--input-encoding", "windows-1252")
	get := verifier(t, serverURL(w.env))
	for i, p := range w.plan[:5] {
		pay := get(p.id)
		wantRef := fmt.Sprintf("ORDER-Café-%d", i)
		if len(pay.Captures) != 1 || pay.Captures[0].ReferenceID != wantRef || !pay.Captures[0].Amount.Equal(aed("10.00")) {
			t.Errorf("payment %s holds %+v, want one capture of 10.00 under %q", p.id, pay.Captures, wantRef)
		}
	}
	// Run again: every id is found as sent, nothing moves twice.
	w.finish("capture", input, "again", "--input-encoding", "windows-1252")
	if !w.moved["again"].IsZero() || !w.captured().Equal(aed("50.00")) {
		t.Errorf("the second run moved %s; the payments hold %s", w.moved["again"], w.captured())
	}
}
