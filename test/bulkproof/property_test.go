package bulkproof

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/shopspring/decimal"
	_ "modernc.org/sqlite"

	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// The property: whatever bytes carry one set of moves (CRLF, a byte-order
// mark, rows reordered, columns reordered, amounts written otherwise,
// Windows-1252), whatever command runs them (payments apply, or capture,
// refund and close each on its rows), at once or one after another, killed
// in the middle, under faults that lose answers after the commit, on a
// sandbox with a seeded clock or the machine's: the service holds each
// intended move exactly once, a copy whose free text was edited since
// moves nothing more, the same copy run with --allow-repeats (its edited
// moves meant, so intended too) moves each edited move once and warns of
// each, naming the move it repeats, and the money every run says it moved
// adds up, per currency, to what the service holds, to the last fil.

const propFaults = "500-after=0.06,drop-after=0.06,latency=1ms"

// propPayments is how many payments the property moves money on: small,
// so that the two sandboxes, a dozen runs each, stay well within CI's
// bounds under -race.
const propPayments = 15

// propMove is one intended move.
type propMove struct {
	op      string // capture, refund, close
	pay     int
	amount  string // a decimal, "full", or "" for a close
	ref     string
	reason  string
	edited  string // the reason as the edited copy writes it
	written string // the amount as the reordered copy writes it
}

func TestPropertyEveryMoveOnceAndMovedAddsUp(t *testing.T) {
	for _, tc := range []struct {
		name  string
		seed  int64
		fixed bool
	}{{"machine clock", 0, false}, {"seeded", 7, true}} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() {
				t.Skip("builds bnpl and runs it against sandboxes; skipped with -short")
			}
			p := newProperty(t, tc.seed, tc.fixed)
			p.run()
		})
	}
}

// property is a world (one sandbox, its payments, a bnpl to run against
// it), the copies of the moves, and what the runs said. Its cmd and
// finish are its own: a run of one of the copies.
type property struct {
	*world
	moves []propMove

	mu     sync.Mutex
	moved  decimal.Decimal // every run's moved, and moved by ended runs
	runs   int
	kills  int
	warned int // rows warned of as repeats sent as new
}

func newProperty(t *testing.T, seed int64, fixed bool) *property {
	opts := sandbox.Options{Seed: seed}
	if fixed {
		opts.ClockStart = sandbox.SeededClockStart
	}
	p := &property{world: openWorld(t, propFaults, opts, propPayments)}
	p.moves = propMoves(len(p.plan))
	return p
}

// propMoves are the intended moves, per payment in order: on even
// payments two captures, one of them twice (identical rows, two moves),
// the rest captured in full, then a refund; on odd ones a capture under a
// reference_id of the file's own, a close, then a refund.
func propMoves(n int) []propMove {
	var moves []propMove
	for i := range n {
		if i%2 == 0 {
			moves = append(moves,
				propMove{op: "capture", pay: i, amount: "50.00", written: "50"},
				propMove{op: "capture", pay: i, amount: "50.00", written: "50.0"},
				propMove{op: "capture", pay: i, amount: "full", written: "FULL"},
				propMove{op: "refund", pay: i, amount: "15.00", written: "15", reason: "café au lait spilt", edited: "cafe au lait spilt"})
			continue
		}
		moves = append(moves,
			propMove{op: "capture", pay: i, amount: "120.00", written: "120", ref: fmt.Sprintf("PROP-%d-C", i)},
			propMove{op: "close", pay: i},
			propMove{op: "refund", pay: i, amount: "20.00", written: "20.0", reason: "retour", edited: "retour client"})
	}
	return moves
}

func (p *property) run() {
	t := p.t
	files := p.writeCopies()
	// At once: four apply copies and the captures alone; the CRLF and
	// the reordered copies are killed in the middle and resumed.
	var wg sync.WaitGroup
	for _, c := range []struct{ name, op, file string }{
		{"base", "apply", files["base"]}, {"win", "apply", files["win"]}, {"caps", "capture", files["caps"]},
	} {
		wg.Add(1)
		go func() { defer wg.Done(); p.finish(c.name, c.op, c.file, asMade) }()
	}
	// The byte-order-mark copy is killed twice: its second run adopts
	// moves of the first, then dies before its summary counts them.
	for name, kills := range map[string]int{"crlf": 1, "bom": 2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.kill(name, files[name], kills)
			p.finish(name, "apply", files[name], asMade)
		}()
	}
	wg.Wait()
	// One after another: the closes and refunds alone, the copy with its
	// free text edited (refused), the same edited and meant (sent, each
	// edited row warned of), and the first copy again.
	p.finish("closes", "close", files["closes"], asMade)
	p.finish("refunds", "refund", files["refunds"], asMade)
	p.finish("edited", "apply", files["edited"], edited)
	p.checkWarnings("meant", p.finish("meant", "apply", files["meant"], meant))
	p.finish("again", "apply", files["base"], asMade)
	held := p.checkService()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.moved.Equal(held) {
		t.Errorf("the runs say they moved %s AED; the service holds %s AED of their moves", p.moved, held)
		p.dumpReports()
		p.dumpLedger()
	}
	if p.kills == 0 {
		t.Errorf("no run was killed: the kills were not tested")
	}
	faults, counts := faultsOf(p.sb)
	t.Logf("property: %d runs, %d moves (%d of them edited rows sent as new, each warned of), %d faults %v, %d kills; service holds %s AED, runs said %s AED",
		p.runs, len(p.moves)+p.warned, p.warned, faults, counts, p.kills, held, p.moved)
}

// cmd is a run of op over file with a report named name.
func (p *property) cmd(name, op, file string, extra ...string) *exec.Cmd {
	args := append([]string{"payments", op, "--input", file,
		"--report", filepath.Join(p.dir, name+".report.csv"),
		"--retries", strconv.Itoa(clientRetries), "--concurrency", "3", "-o", "json"}, extra...)
	c := exec.Command(p.bin, args...)
	c.Env, c.Dir = p.env, p.dir
	return c
}

// copyKind is how a copy's rows stand to the moves the service holds.
type copyKind int

const (
	// asMade: the moves as they are.
	asMade copyKind = iota
	// edited: the refunds' free text edited since they ran, run without
	// --allow-repeats: refused as possible repeats.
	edited
	// meant: the same, run with --allow-repeats: new moves a user asked
	// for, each sent with a warning.
	meant
)

// finish runs a copy to its end (each run resumes the ledger's record of
// the ones before it): again with
// --retry-failed while rows failed for a reason a fault explains. The
// edited copy ends with its edited rows refused as possible repeats, and
// nothing else failed. It returns the stderr of each run.
func (p *property) finish(name, op, file string, kind copyKind) []string {
	t := p.t
	var extra []string
	if kind != edited && op != "close" {
		// The identical rows are meant, and the meant copy's edited rows.
		extra = append(extra, "--allow-repeats")
	}
	if strings.HasSuffix(file, ".win.csv") {
		extra = append(extra, "--input-encoding", "windows-1252")
	}
	var stderrs []string
	for i := range maxResumes {
		var stdout, stderr bytes.Buffer
		c := p.cmd(name, op, file, extra...)
		c.Stdout, c.Stderr = &stdout, &stderr
		code := exitCode(c.Run())
		stderrs = append(stderrs, stderr.String())
		if code == 2 {
			t.Fatalf("%s run %d: exit 2\n%s", name, i+1, tail(stderr.String()))
		}
		p.count(name, stdout.Bytes())
		report := readReport(t, filepath.Join(p.dir, name+".report.csv"))
		if code == 0 {
			return stderrs
		}
		if code != 10 && code != 11 {
			t.Fatalf("%s run %d: exit %d\n%s", name, i+1, code, tail(stderr.String()))
		}
		if kind == edited && onlyRepeats(t, name, report) {
			return stderrs
		}
		for _, row := range report {
			if row.Outcome == "failed" && !transient(row) && !(kind == edited && row.ErrorType == "possible_repeat") {
				t.Fatalf("%s line %d failed for a reason no fault explains: %d %s %s", name, row.Line, row.HTTPStatus, row.ErrorType, row.Message)
			}
		}
		extra = append(extra, "--retry-failed")
	}
	t.Fatalf("%s did not complete in %d runs", name, maxResumes)
	return nil
}

// repeatWarning is a run's warning of a row sent as new with
// --allow-repeats although it repeats a settled move: its line and op, the
// amount held, and the run, file and row that made it.
var repeatWarning = regexp.MustCompile(`^apply: line (\d+) goes as a new (\w+) with --allow-repeats, although the payment already holds a (\w+) of ([0-9.]+) AED under reference_id \S+, made by run \d+ \(.*\), line \d+ of \S+, which no row of this file accounts for`)

// checkWarnings checks the warnings of the runs of the meant copy: each
// edited refund row was warned of, naming the move it repeats and who
// made it; no run warned twice of one row, and no other row was warned
// of. A row warned of by a run that did not finish it may be warned of
// again by the run that resumes it.
func (p *property) checkWarnings(name string, stderrs []string) {
	t := p.t
	refunds := map[int]propMove{} // by line of the meant copy
	for k, m := range p.moves {
		if m.op == "refund" {
			refunds[k+2] = m
		}
	}
	warned := map[int]bool{}
	for i, out := range stderrs {
		var found [][]string
		for _, w := range jsonWarnings(t, out) {
			if m := repeatWarning.FindStringSubmatch(w); m != nil {
				found = append(found, m)
			}
		}
		if n := strings.Count(out, " goes as a new "); n != len(found) {
			t.Errorf("%s run %d: %d warnings of repeats, %d naming the move held and who made it:\n%s", name, i+1, n, len(found), tail(out))
		}
		seen := map[int]bool{}
		for _, w := range found {
			line, _ := strconv.Atoi(w[1])
			m, ok := refunds[line]
			switch {
			case !ok || w[2] != "refund" || w[3] != "refund" || w[4] != m.amount:
				t.Errorf("%s run %d warned of line %d, which repeats no settled move: %s", name, i+1, line, w[0])
			case seen[line]:
				t.Errorf("%s run %d warned twice of line %d", name, i+1, line)
			}
			seen[line], warned[line] = true, true
		}
	}
	for line := range refunds {
		if !warned[line] {
			t.Errorf("%s line %d, an edited refund sent as new, was warned of by no run", name, line)
		}
	}
	p.mu.Lock()
	p.warned += len(warned)
	p.mu.Unlock()
}

// jsonWarnings are the warnings of a run's stderr under -o json, one
// JSON object a line.
func jsonWarnings(t *testing.T, stderr string) []string {
	var warnings []string
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var obj struct {
			Warning string `json:"warning"`
		}
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Errorf("stderr line %q under -o json: %v", line, err)
			continue
		}
		if obj.Warning != "" {
			warnings = append(warnings, obj.Warning)
		}
	}
	return warnings
}

// onlyRepeats reports whether the edited copy's report refuses exactly
// its edited rows as possible repeats, and settles every other row.
func onlyRepeats(t *testing.T, name string, report map[int]reportRow) bool {
	for _, row := range report {
		switch {
		case row.Op == "refund" && row.Outcome == "failed" && row.ErrorType == "possible_repeat":
		case row.Op == "refund":
			t.Errorf("%s line %d: the edited refund is %s (%s), want refused as a possible repeat", name, row.Line, row.Outcome, row.Message)
		case row.Outcome != "reconciled":
			return false
		}
	}
	return true
}

func transient(row reportRow) bool {
	return row.HTTPStatus == 0 && row.ErrorType == "" || row.HTTPStatus == 429 || row.HTTPStatus >= 500 ||
		(row.HTTPStatus == 409 && strings.Contains(row.Message, "payment is locked"))
}

// count adds what a run's JSON summary says it moved.
func (p *property) count(name string, out []byte) {
	w := &world{t: p.t, moved: map[string]decimal.Decimal{}}
	w.countMoved(name, out)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.moved = p.moved.Add(w.moved[name])
	p.runs++
	p.t.Logf("%s: %s", name, bytes.TrimSpace(out))
}

// kill starts a run of a copy and kills it (SIGKILL) once a few more of
// its rows have outcomes in the ledger, while others are in flight; times
// runs in turn, each resuming the one killed before it.
func (p *property) kill(name, file string, times int) {
	t := p.t
	l := sqliteLedger(filepath.Join(p.dir, "home", ".state"))
	for range times {
		var stdout bytes.Buffer
		c := p.cmd(name, "apply", file, "--allow-repeats")
		c.Stdout = &stdout
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan int, 1)
		go func() { done <- exitCode(c.Wait()) }()
		if _, finished := waitResults(l, c, 3, done); finished {
			t.Logf("%s ended before the kill", name)
			p.count(name, stdout.Bytes())
			return
		}
		_ = c.Process.Signal(syscall.SIGKILL)
		<-done
		p.mu.Lock()
		p.kills++
		p.runs++
		p.mu.Unlock()
	}
}

// dumpReports logs the rows of every report that moved or found money, to
// see which run said what.
func (p *property) dumpReports() {
	paths, _ := filepath.Glob(filepath.Join(p.dir, "*.report.csv"))
	for _, path := range paths {
		for _, row := range readReport(p.t, path) {
			if row.Op != "close" && row.Outcome != "failed" {
				p.t.Logf("%s line %d: %s %s %s %s: %s", filepath.Base(path), row.Line, row.Op, row.Amount, row.ReferenceID, row.Outcome, row.Message)
			}
		}
	}
}

// dumpLedger logs the ledger's runs and moves. A run may still hold the
// ledger's lock: like bnpl, it waits for it (busy_timeout).
func (p *property) dumpLedger() {
	dumpLedger(p.t, "sqlite", "file:"+filepath.Join(p.dir, "home", ".state", "bnpl", "bulk-ledger.db")+"?_pragma=busy_timeout(30000)", nil)
}

// dumpLedger logs the runs and moves of the ledger at dsn (driver sqlite
// or pgx), the moves of payments only when payments is not nil.
func dumpLedger(t *testing.T, driver, dsn string, payments map[string]bool) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Log(err)
		return
	}
	defer db.Close()
	rows, err := db.Query("SELECT id, pid, input, summarized, COALESCE(ended, '') FROM runs ORDER BY id")
	if err == nil {
		for rows.Next() {
			var id, pid, summarized int
			var input, ended string
			_ = rows.Scan(&id, &pid, &input, &summarized, &ended)
			t.Logf("run %d pid %d %s summarized %d ended %q", id, pid, input, summarized, ended)
		}
		rows.Close()
	}
	rows, err = db.Query("SELECT payment_id, op, amount, reference_id, phase, run, COALESCE(moved_by, 0), COALESCE(adopted_by, 0) FROM moves ORDER BY payment_id")
	if err != nil {
		t.Log(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var pid, op, amount, ref, phase string
		var run, movedBy, adoptedBy int
		_ = rows.Scan(&pid, &op, &amount, &ref, &phase, &run, &movedBy, &adoptedBy)
		if payments == nil || payments[pid] {
			t.Logf("move %s %s %s %s: %s run %d moved_by %d adopted_by %d", pid[:8], op, amount, ref, phase, run, movedBy, adoptedBy)
		}
	}
	if payments == nil {
		return
	}
	rows, err = db.Query("SELECT run, line, payment_id, op, amount, reference_id, outcome, moved, earlier, by_run, adopted, message FROM run_rows ORDER BY payment_id, run")
	if err != nil {
		t.Log(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var run, line, moved, earlier, byRun, adopted int
		var pid, op, amount, ref, outcome, msg string
		_ = rows.Scan(&run, &line, &pid, &op, &amount, &ref, &outcome, &moved, &earlier, &byRun, &adopted, &msg)
		if payments[pid] {
			t.Logf("row of run %d line %d %s %s %s %s: %s moved %d earlier %d by_run %d adopted %d: %s", run, line, pid[:8], op, amount, ref, outcome, moved, earlier, byRun, adopted, msg)
		}
	}
}
