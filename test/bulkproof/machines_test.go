package bulkproof

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// Without a shared ledger each machine (a state directory of its own) has
// a ledger of its own, and the service answers two senders of one
// reference_id alike. What must still hold: machines that run one file one
// after another (no kills) sum exactly, Σ moved + moved_by_ended_runs over
// every run equal to what the service holds, the later machines counting
// every move as held_before; and for machines that run it at once, which
// cannot be told apart, the test says how often the sum is off, and
// checks that each time some run of it warned that money of the file was
// moved outside its ledger, naming --ledger.

const (
	machinesFaults   = "500-after=0.05,drop-after=0.05,latency=2ms"
	machinesPayments = 10
)

// machinesAtOnce is how many times two machines run a file at once, each
// time on payments of their own; killRounds how many times a run killed
// part-way is resumed on another machine, and how many times the file is
// run on another machine before the killed run is resumed where it ran.
// Fewer under -race, whose binaries are slower.
var machinesAtOnce, killRounds = map[bool]int{false: 6, true: 3}[raceEnabled], map[bool]int{false: 3, true: 2}[raceEnabled]

func TestPropertyWithoutASharedLedger(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bnpl and runs it against a sandbox; skipped with -short")
	}
	bin := sharedBnpl(t)
	sb, srv, dir, env := faultySandbox(t, machinesFaults)
	st := &machineStats{}
	t.Run("one after another", func(t *testing.T) { oneAfterAnother(t, bin, dir, env, sb, srv.URL, st) })
	t.Run("at once", func(t *testing.T) { atOnce(t, bin, dir, env, sb, srv.URL, st) })
	t.Run("killed, resumed elsewhere", func(t *testing.T) { killedElsewhere(t, bin, dir, env, sb, srv.URL, st) })
	faults, counts := faultsOf(sb)
	t.Logf("without a shared ledger: %d runs on %d machines, %d kills, %d faults %v; one after another: reported %s AED, held %s AED (held_before counted by the later machines %s AED); at once: %d of %d times the sum was off (reported %s AED against %s AED held), each time warned by some run: %d; runs of those that did not warn: %d",
		st.runs, st.machines, st.kills, faults, counts, st.seqReported, st.seqHeld, st.seqHeldBefore, st.off, machinesAtOnce, st.onceReported, st.onceHeld, st.offWarned, st.silent)
	t.Logf("killed on one machine: resumed on another, %d times: reported %s AED + held_before %s AED = %s AED held; run on another, then resumed on the first, %d times: the sum was off %d times (reported %s AED against %s AED held), every resume warned: %v",
		killRounds, st.elseReported, st.elseHeldBefore, st.elseHeld, killRounds, st.backOff, st.backReported, st.backHeld, st.backWarned == killRounds)
}

// machineStats are the figures the test reports.
type machineStats struct {
	runs, machines                      int
	seqReported, seqHeld, seqHeldBefore decimal.Decimal
	onceReported, onceHeld              decimal.Decimal
	off, offWarned, silent              int
	kills, backOff, backWarned          int
	elseReported, elseHeldBefore        decimal.Decimal
	elseHeld, backReported, backHeld    decimal.Decimal
}

// machine is one laptop: a state directory (so a ledger) of its own.
type machine struct {
	t        *testing.T
	name     string
	bin, dir string
	env      []string
	// own: the machine runs its own copy of each file (copied into its
	// directory, as a colleague's laptop holds one) with no --journal:
	// a run is resumed, there or on another machine, by the same command
	// on the same input.
	own bool
	// trace, when set, is told each run's summary.
	trace func(string)
	// flags are added to each run's.
	flags []string
}

// command is a run of file on m, its report in m's directory (beside m's
// copy of the file when m has its own), under -o json.
func (m *machine) command(file string, extra ...string) *exec.Cmd {
	args := []string{"payments", "capture", "--input", file,
		"--report", filepath.Join(m.dir, "caps.report.csv")}
	if m.own {
		input := filepath.Join(m.dir, filepath.Base(file))
		if _, err := os.Stat(input); err != nil {
			data, err := os.ReadFile(file)
			if err != nil {
				m.t.Fatal(err)
			}
			if err := os.WriteFile(input, data, 0o600); err != nil {
				m.t.Fatal(err)
			}
		}
		args = []string{"payments", "capture", "--input", input, "--report", m.report(file)}
		if strings.HasSuffix(file, ".win.csv") {
			args = append(args, "--input-encoding", "windows-1252")
		}
	}
	args = append(args, append(append([]string{"--retries", strconv.Itoa(clientRetries), "-o", "json"}, m.flags...), extra...)...)
	c := exec.Command(m.bin, args...)
	c.Env, c.Dir = m.env, m.dir
	return c
}

// report is the report of m's runs of file.
func (m *machine) report(file string) string {
	if m.own {
		return filepath.Join(m.dir, filepath.Base(file)+".report.csv")
	}
	return filepath.Join(m.dir, "caps.report.csv")
}

func newMachine(t *testing.T, bin, dir string, env []string, name string) *machine {
	state := filepath.Join(dir, name, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	var own []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			own = append(own, kv)
		}
	}
	return &machine{t: t, name: name, bin: bin, dir: filepath.Join(dir, name), env: append(own, "XDG_STATE_HOME="+state)}
}

// machineRun is what a machine's runs of a file said, summed.
type machineRun struct {
	reported, heldBefore decimal.Decimal
	// byEnded is the part of reported found moved by runs that ended
	// before they could count it (moved_by_ended_runs).
	byEnded decimal.Decimal
	warned  bool
	runs    int
}

// finish runs file on m to exit 0 (again with --retry-failed while rows
// failed for a reason a fault explains), and sums what its runs said.
func (m *machine) finish(file string) machineRun {
	t := m.t
	var out machineRun
	var extra []string
	for i := range maxResumes {
		var stdout, stderr bytes.Buffer
		c := m.command(file, extra...)
		c.Stdout, c.Stderr = &stdout, &stderr
		code := exitCode(c.Run())
		out.runs++
		m.add(&out, stdout.Bytes(), stderr.String())
		if code == 0 {
			return out
		}
		if code != 10 && code != 11 {
			t.Fatalf("%s run %d: exit %d\n%s", m.name, i+1, code, tail(stderr.String()))
		}
		for _, row := range readReport(t, m.report(file)) {
			if row.Outcome == "failed" && !transient(row) {
				t.Fatalf("%s line %d failed for a reason no fault explains: %d %s %s", m.name, row.Line, row.HTTPStatus, row.ErrorType, row.Message)
			}
		}
		extra = []string{"--retry-failed"}
	}
	t.Fatalf("%s did not complete in %d runs", m.name, maxResumes)
	return out
}

// add sums a run's JSON summary into out, and notes its warning of money
// moved outside its ledger.
func (m *machine) add(out *machineRun, stdout []byte, stderr string) {
	if m.trace != nil {
		m.trace(m.name + ": " + string(bytes.TrimSpace(stdout)))
	}
	var sum struct {
		Op         string            `json:"op"`
		Moved      map[string]string `json:"moved"`
		Ended      map[string]string `json:"moved_by_ended_runs"`
		HeldBefore map[string]string `json:"held_before_amounts"`
	}
	if err := json.Unmarshal(stdout, &sum); err != nil || sum.Op == "" {
		m.t.Fatalf("%s: no JSON summary on stdout (%v): %q", m.name, err, stdout)
	}
	add := func(to *decimal.Decimal, m map[string]string) {
		for _, amt := range m {
			*to = to.Add(decimal.RequireFromString(amt))
		}
	}
	add(&out.reported, sum.Moved)
	add(&out.reported, sum.Ended)
	add(&out.byEnded, sum.Ended)
	add(&out.heldBefore, sum.HeldBefore)
	for _, w := range jsonWarnings(m.t, stderr) {
		if strings.Contains(w, "moved outside this machine's ledger") && strings.Contains(w, "--ledger") {
			out.warned = true
		}
	}
}

// twoCaptures writes a file of two captures (150.00, 200.00) on each of
// machinesPayments new payments, and returns it and the payments.
func twoCaptures(t *testing.T, sb *sandbox.Sandbox, url, dir, name string) (string, []*plannedPayment) {
	plan := planPayments(t, sb, url, machinesPayments)
	var b strings.Builder
	b.WriteString("payment_id,amount\n")
	for _, amt := range []string{"150.00", "200.00"} {
		for _, p := range plan {
			fmt.Fprintf(&b, "%s,%s\n", p.id, amt)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, plan
}

// held is what the payments hold, read through the API.
func held(t *testing.T, url string, plan []*plannedPayment) decimal.Decimal {
	get := verifier(t, url)
	total := decimal.Zero
	for _, p := range plan {
		total = total.Add(get(p.id).Captured())
	}
	return total
}

func oneAfterAnother(t *testing.T, bin, dir string, env []string, sb *sandbox.Sandbox, url string, st *machineStats) {
	file, plan := twoCaptures(t, sb, url, dir, "seq.csv")
	reported, heldBefore := decimal.Zero, decimal.Zero
	for i := range 3 {
		m := newMachine(t, bin, dir, env, fmt.Sprintf("seq-%d", i))
		r := m.finish(file)
		st.runs += r.runs
		st.machines++
		reported = reported.Add(r.reported)
		if i > 0 {
			heldBefore = heldBefore.Add(r.heldBefore)
			if !r.reported.IsZero() || !r.warned {
				t.Errorf("%s came after the first: it said it moved %s AED (want none), warned %v", m.name, r.reported, r.warned)
			}
		}
	}
	h := held(t, url, plan)
	want := decimal.NewFromInt(350 * machinesPayments)
	if !reported.Equal(h) || !h.Equal(want) {
		t.Errorf("one after another: the runs said %s AED, the service holds %s AED (want %s)", reported, h, want)
	}
	if !heldBefore.Equal(h.Mul(decimal.NewFromInt(2))) {
		t.Errorf("the two later machines counted %s AED held before, want %s", heldBefore, h.Mul(decimal.NewFromInt(2)))
	}
	st.seqReported, st.seqHeld, st.seqHeldBefore = reported, h, heldBefore
}

func atOnce(t *testing.T, bin, dir string, env []string, sb *sandbox.Sandbox, url string, st *machineStats) {
	for it := range machinesAtOnce {
		file, plan := twoCaptures(t, sb, url, dir, fmt.Sprintf("once-%d.csv", it))
		var wg sync.WaitGroup
		runs := make([]machineRun, 2)
		for k := range runs {
			m := newMachine(t, bin, dir, env, fmt.Sprintf("once-%d-%c", it, 'a'+k))
			wg.Add(1)
			go func() { defer wg.Done(); runs[k] = m.finish(file) }()
		}
		wg.Wait()
		h := held(t, url, plan)
		reported := runs[0].reported.Add(runs[1].reported)
		st.runs += runs[0].runs + runs[1].runs
		st.machines += 2
		st.onceReported, st.onceHeld = st.onceReported.Add(reported), st.onceHeld.Add(h)
		if h.Equal(decimal.NewFromInt(350*machinesPayments)) == false {
			t.Errorf("at once %d: the service holds %s AED, want each move once", it, h)
		}
		if reported.Equal(h) {
			continue
		}
		st.off++
		for _, r := range runs {
			// A run whose every send the service answered as its own
			// cannot know of the other: counted, not failed.
			if !r.warned {
				st.silent++
			}
		}
		if runs[0].warned || runs[1].warned {
			st.offWarned++
		} else {
			t.Errorf("at once %d: the runs said %s AED of %s AED held, and neither warned", it, reported, h)
		}
	}
}

// killPartWay starts a run of file on m and kills it (SIGKILL) once m's
// ledger records results outcomes of it.
func (m *machine) killPartWay(file string, results int) {
	t := m.t
	c := m.command(file)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- exitCode(c.Wait()) }()
	if code, ended := waitResults(sqliteLedger(filepath.Join(m.dir, "state")), c, results, done); ended {
		t.Fatalf("%s ended (exit %d) before the kill", m.name, code)
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	<-done
}

func killedElsewhere(t *testing.T, bin, dir string, env []string, sb *sandbox.Sandbox, url string, st *machineStats) {
	for it := range killRounds {
		// Killed on A, the file run on B (a ledger of its own, which
		// knows nothing of A's run): A's money is in no summary, and B
		// counts it held before, apart, warning.
		file, plan := twoCaptures(t, sb, url, dir, fmt.Sprintf("else-%d.csv", it))
		a := newMachine(t, bin, dir, env, fmt.Sprintf("else-%d-a", it))
		b := newMachine(t, bin, dir, env, fmt.Sprintf("else-%d-b", it))
		a.killPartWay(file, machinesPayments/2)
		r := b.finish(file)
		h := held(t, url, plan)
		st.kills++
		st.runs += 1 + r.runs
		st.machines += 2
		st.elseReported, st.elseHeldBefore, st.elseHeld = st.elseReported.Add(r.reported), st.elseHeldBefore.Add(r.heldBefore), st.elseHeld.Add(h)
		if !r.reported.Add(r.heldBefore).Equal(h) || !r.warned || r.heldBefore.IsZero() {
			t.Errorf("resumed elsewhere %d: reported %s + held before %s, the service holds %s; warned %v", it, r.reported, r.heldBefore, h, r.warned)
		}
		// Killed on C, the file run on D, then C resumed: C may count a
		// move it sent in flight that D's send made; it warns.
		file, plan = twoCaptures(t, sb, url, dir, fmt.Sprintf("back-%d.csv", it))
		c := newMachine(t, bin, dir, env, fmt.Sprintf("back-%d-c", it))
		d := newMachine(t, bin, dir, env, fmt.Sprintf("back-%d-d", it))
		c.killPartWay(file, machinesPayments/2)
		rd := d.finish(file)
		rc := c.finish(file)
		h = held(t, url, plan)
		st.kills++
		st.runs += 1 + rd.runs + rc.runs
		st.machines += 2
		reported := rd.reported.Add(rc.reported)
		st.backReported, st.backHeld = st.backReported.Add(reported), st.backHeld.Add(h)
		if !reported.Equal(h) {
			st.backOff++
		}
		if rc.warned {
			st.backWarned++
		} else {
			t.Errorf("resumed where it was killed %d: no warning, though the other machine moved money of the file", it)
		}
	}
}
