package bulkproof

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/charmap"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger/pgtest"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// With a shared ledger the service's blindness is gone: two or three
// machines (state directories of their own) naming one PostgreSQL ledger
// run copies of one file (as made, with CRLF line ends, with a byte-order
// mark, columns reordered, ids in capitals and amounts written otherwise,
// and in Windows-1252) at once and one after another, a run killed (SIGKILL) at a
// random point and resumed on another machine, under faults that lose
// answers after the commit, and across a restart of the database (the run
// stops, exit 12, and is resumed). What must hold, every round: the
// service holds each move once, no move is held before (every sender is
// in the ledger), and Σ over every printed summary of moved +
// moved_by_ended_runs is what the service holds; at the end `payments
// report --source ledger` says, row for row, what `payments report` reads
// from the service.

const sharedPropFaults = "500-after=0.05,drop-after=0.05,latency=2ms"

// sharedRounds is how many times each kind of round runs, each on
// payments of its own (fewer under -race, whose binaries are slower).
var sharedRounds = map[bool]int{false: 2, true: 1}[raceEnabled]

// sharedSeed sets the kill points of TestPropertySharingAPostgresLedger
// (go test -run TestPropertySharingAPostgresLedger ./test/bulkproof/
// -args -bulkproof.seed=N reruns a failure); 0 takes the clock's.
var sharedSeed = flag.Uint64("bulkproof.seed", 0, "seed of the shared-ledger property's kill points (0: the clock's)")

func TestPropertySharingAPostgresLedger(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bnpl and runs it against a sandbox and PostgreSQL; skipped with -short")
	}
	pg := pgtest.Get(t)
	seed := *sharedSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill points from seed %d (rerun: -args -bulkproof.seed=%d)", seed, seed)
	p := newSharedProperty(t, pg, seed)
	for it := range sharedRounds {
		for _, k := range []int{2, 3} {
			t.Run(fmt.Sprintf("%d machines at once %d", k, it), func(t *testing.T) { p.atOnce(t, k, it) })
			t.Run(fmt.Sprintf("%d machines one after another %d", k, it), func(t *testing.T) { p.oneAfterAnother(t, k, it) })
		}
		t.Run(fmt.Sprintf("database restarted %d", it), func(t *testing.T) { p.restarted(t, it) })
	}
	p.checkReports()
	faults, counts := faultsOf(p.sb)
	if p.kills == 0 || p.restarts == 0 || counts["500-after"] == 0 || counts["drop-after"] == 0 {
		t.Errorf("the property did not face what it is about: %d kills, %d database restarts, faults %v", p.kills, p.restarts, counts)
	}
	t.Logf("sharing a PostgreSQL ledger: %d rounds, %d runs on %d machines, %d kills (and %d runs that ended before their kill point), %d faults %v, %d database restarts (%d runs stopped with exit 12); reported %s AED (of it moved by ended runs, counted by the runs that found their moves: %s AED), held %s AED, held before %s AED; payments report: service %s AED net, ledger %s AED net",
		p.rounds, p.runs, len(p.machines), p.kills, p.late, faults, counts, p.restarts, p.stopped, p.reported, p.byEnded, p.held, p.heldBefore, p.serviceNet, p.ledgerNet)
}

// sharedProperty is a sandbox, the machines sharing one ledger, and the
// figures of their runs.
type sharedProperty struct {
	t         *testing.T
	pg        *pgtest.Server
	sb        *sandbox.Sandbox
	url       string // the sandbox's
	ledgerURL string
	dir       string
	machines  []*machine
	rng       *rand.Rand
	reader    *ledger.Ledger

	mu                         sync.Mutex
	rounds, runs, kills, late  int
	restarts, stopped          int
	reported, held, heldBefore decimal.Decimal
	byEnded                    decimal.Decimal
	serviceNet, ledgerNet      string
	// said are the summaries of the round's runs, for a failure to show.
	said []string
}

func newSharedProperty(t *testing.T, pg *pgtest.Server, seed uint64) *sharedProperty {
	bin := sharedBnpl(t)
	sb, srv, dir, env := faultySandbox(t, sharedPropFaults)
	ledgerURL := pg.NewDatabase(t)
	p := &sharedProperty{t: t, pg: pg, sb: sb, url: srv.URL, ledgerURL: ledgerURL, dir: dir, rng: rand.New(rand.NewPCG(seed, 41))}
	for i := range 3 {
		m := newMachine(t, bin, dir, append(env, "BNPL_LEDGER="+ledgerURL), fmt.Sprintf("laptop-%c", 'a'+i))
		m.own = true
		m.trace = func(line string) { p.mu.Lock(); p.said = append(p.said, line); p.mu.Unlock() }
		p.machines = append(p.machines, m)
	}
	// The ledger's tables are made by the first run; the test reads the
	// moves the runs record to choose its kill points.
	reader, err := ledger.Open(ledger.Options{URL: ledgerURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reader.Close)
	p.reader = reader
	return p
}

// moved is how many moves the ledger records moved on the sandbox; -1
// while the database does not answer.
func (p *sharedProperty) moved() int {
	n := 0
	err := p.reader.EachMoved(p.url, time.Time{}, time.Now().Add(time.Hour), func(ledger.MovedMove) error { n++; return nil })
	if err != nil {
		return -1
	}
	return n
}

// round is one file's payments and what its runs said.
type round struct {
	p      *sharedProperty
	name   string
	plan   []*plannedPayment
	copies []string
	mu     sync.Mutex
	sum    machineRun
}

func (p *sharedProperty) newRound(t *testing.T, name string) *round {
	plan := planPayments(t, p.sb, p.url, machinesPayments)
	p.mu.Lock()
	p.said = nil
	p.mu.Unlock()
	return &round{p: p, name: name, plan: plan, copies: recodedCopies(t, p.dir, name, plan)}
}

// add sums what runs said into the round.
func (r *round) add(runs ...machineRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range runs {
		r.sum.reported = r.sum.reported.Add(m.reported)
		r.sum.heldBefore = r.sum.heldBefore.Add(m.heldBefore)
		r.sum.byEnded = r.sum.byEnded.Add(m.byEnded)
		r.sum.runs += m.runs
	}
}

// killed starts a run of file on m and kills it (SIGKILL) once the ledger
// records at more moves, while others are in flight; a run that ends
// first is counted as it ended.
func (r *round) killed(m *machine, file string, at int) {
	t := r.p.t
	var stdout, stderr bytes.Buffer
	c := m.command(file)
	c.Stdout, c.Stderr = &stdout, &stderr
	base := r.p.moved()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- exitCode(c.Wait()) }()
	code, ended := waitUntil(done, func() bool { return r.p.moved() >= base+at })
	if !ended {
		_ = c.Process.Signal(syscall.SIGKILL)
		code = <-done
	}
	r.p.mu.Lock()
	if ended {
		r.p.late++
	} else {
		r.p.kills++
	}
	r.p.mu.Unlock()
	r.ended(m, code, stdout.Bytes(), stderr.String())
}

// ended counts a run that ended by itself or was stopped: its summary,
// when it printed one.
func (r *round) ended(m *machine, code int, stdout []byte, stderr string) {
	out := machineRun{runs: 1}
	if code != -1 && code != 0 && code != 10 && code != 11 && code != 12 {
		r.p.t.Fatalf("%s on %s: exit %d\n%s", r.name, m.name, code, tail(stderr))
	}
	if bytes.Contains(stdout, []byte(`"op"`)) {
		m.add(&out, stdout, stderr)
	}
	r.add(out)
}

// check reads the round's payments: each holds its two captures once,
// nothing is held before, and what the runs said is what is held.
func (r *round) check(t *testing.T) {
	get := verifier(t, r.p.url)
	total := decimal.Zero
	for _, pp := range r.plan {
		pay := get(pp.id)
		var amounts []string
		for _, c := range pay.Captures {
			amounts = append(amounts, c.Amount.StringFixed(2))
			total = total.Add(c.Amount)
		}
		if strings.Join(amounts, " ") != "150.00 200.00" && strings.Join(amounts, " ") != "200.00 150.00" {
			t.Errorf("%s: payment %s holds captures %v, want 150.00 and 200.00 once each", r.name, pp.id, amounts)
		}
	}
	if !r.sum.reported.Equal(total) || !r.sum.heldBefore.IsZero() {
		t.Errorf("%s: the runs said they moved %s AED (held before %s AED); the service holds %s AED", r.name, r.sum.reported, r.sum.heldBefore, total)
		r.dump(t)
	}
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rounds++
	p.runs += r.sum.runs
	p.reported, p.held = p.reported.Add(r.sum.reported), p.held.Add(total)
	p.heldBefore, p.byEnded = p.heldBefore.Add(r.sum.heldBefore), p.byEnded.Add(r.sum.byEnded)
	t.Logf("%s: %d runs said %s AED (%s AED of it moved by ended runs); the service holds %s AED", r.name, r.sum.runs, r.sum.reported, r.sum.byEnded, total)
}

// dump logs what the runs of the round said, row by row, and what the
// ledger holds of its payments.
func (r *round) dump(t *testing.T) {
	r.p.mu.Lock()
	for _, line := range r.p.said {
		t.Log(line)
	}
	r.p.mu.Unlock()
	payments := map[string]bool{}
	for _, pp := range r.plan {
		payments[pp.id] = true
	}
	dumpLedger(t, "pgx", r.p.ledgerURL, payments)
}

// at is a random kill point: after 1 to half the file's moves.
func (p *sharedProperty) at(rows int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return 1 + p.rng.IntN(rows/2)
}

// atOnce: k machines run copies of the file at once; one of them, chosen
// at random, is killed at a random point and its copy resumed on the next
// machine.
func (p *sharedProperty) atOnce(t *testing.T, k, it int) {
	r := p.newRound(t, fmt.Sprintf("once-%d-%d", k, it))
	victim := p.at(2*k) % k
	at := p.at(2 * len(r.plan))
	var wg sync.WaitGroup
	for i := range k {
		m, file := p.machines[i], r.copies[(i+it)%len(r.copies)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i != victim {
				r.add(m.finish(file))
				return
			}
			r.killed(m, file, at)
			r.add(p.machines[(i+1)%k].finish(file))
		}()
	}
	wg.Wait()
	r.check(t)
}

// oneAfterAnother: the first machine's run is killed at a random point;
// each other machine runs a copy of its own to the end; the killed copy is
// resumed on the last machine, then run again where it was killed, which
// finds every move made.
func (p *sharedProperty) oneAfterAnother(t *testing.T, k, it int) {
	r := p.newRound(t, fmt.Sprintf("after-%d-%d", k, it))
	first, copyOf := p.machines[0], func(i int) string { return r.copies[(k+it+i)%len(r.copies)] }
	r.killed(first, copyOf(0), p.at(2*len(r.plan)))
	for i := 1; i < k; i++ {
		r.add(p.machines[i].finish(copyOf(i)))
	}
	r.add(p.machines[k-1].finish(copyOf(0)))
	again := first.finish(copyOf(0))
	if !again.reported.IsZero() {
		t.Errorf("%s: run again where it was killed, it said it moved %s AED, want nothing", r.name, again.reported)
	}
	r.add(again)
	r.check(t)
}

// restarted: the database restarts while a run sends; the run stops
// (exit 12, naming the database) unless it had ended, and is resumed on
// another machine, then run again where it stopped.
func (p *sharedProperty) restarted(t *testing.T, it int) {
	r := p.newRound(t, fmt.Sprintf("restarted-%d", it))
	m := p.machines[0]
	var stdout, stderr bytes.Buffer
	file := r.copies[(2+it)%len(r.copies)]
	c := m.command(file, "--rate", "20")
	c.Stdout, c.Stderr = &stdout, &stderr
	base := p.moved()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- exitCode(c.Wait()) }()
	at := p.at(2 * len(r.plan))
	code, ended := waitUntil(done, func() bool { return p.moved() >= base+at })
	if !ended {
		if err := p.pg.Restart(); err != nil {
			t.Fatal(err)
		}
		p.restarts++
		code = <-done
	}
	switch {
	case code == 12 && strings.Contains(stderr.String(), "postgres 127.0.0.1:"):
		p.stopped++
	case code == 12:
		t.Errorf("the stop does not name the database:\n%s", tail(stderr.String()))
	case code != 0:
		t.Fatalf("the run across the restart: exit %d, want 12 (or 0 had it ended first)\n%s", code, tail(stderr.String()))
	}
	r.ended(m, code, stdout.Bytes(), stderr.String())
	r.add(p.machines[1].finish(file))
	r.add(m.finish(file))
	r.check(t)
}

// checkReports: payments report reads, from the ledger the machines
// share, what the service holds, row for row, and what the runs said.
func (p *sharedProperty) checkReports() {
	t := p.t
	m := p.machines[2]
	read := func(source string) (string, decimal.Decimal) {
		var stdout, stderr bytes.Buffer
		c := exec.Command(m.bin, "payments", "report", "--since", "2000-01-01", "--until", "2100-01-01", "--by", "month",
			"--source", source, "--retries", "30", "-o", "json")
		c.Env, c.Dir, c.Stdout, c.Stderr = m.env, m.dir, &stdout, &stderr
		if code := exitCode(c.Run()); code != 0 {
			t.Fatalf("payments report --source %s: exit %d\n%s", source, code, tail(stderr.String()))
		}
		var rows []struct{ Currency, Captured, Net string }
		if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
			t.Fatalf("payments report --source %s: %v\n%s", source, err, stdout.String())
		}
		net := decimal.Zero
		for _, row := range rows {
			net = net.Add(decimal.RequireFromString(row.Net))
		}
		return stdout.String(), net
	}
	service, serviceNet := read("service")
	led, ledgerNet := read("ledger")
	p.serviceNet, p.ledgerNet = serviceNet.StringFixed(2), ledgerNet.StringFixed(2)
	if service != led {
		t.Errorf("payments report: the service's totals\n%s\nthe ledger's\n%s", service, led)
	}
	if !ledgerNet.Equal(p.held) || !serviceNet.Equal(p.reported) {
		t.Errorf("payments report: the ledger's %s AED and the service's %s AED; the runs said %s AED, the service holds %s AED",
			ledgerNet, serviceNet, p.reported, p.held)
	}
}

// recodedCopies writes a file of two captures on each payment of plan,
// 150.00 under a reference_id of the file's own (not ASCII) and 200.00
// under one bnpl derives, and copies of it: with CRLF line ends; with a
// byte-order mark, its columns reordered, its ids in capitals, its
// amounts written otherwise and every field quoted; in Windows-1252. They
// are one set of moves.
func recodedCopies(t *testing.T, dir, name string, plan []*plannedPayment) []string {
	var lf, bom strings.Builder
	lf.WriteString("payment_id,amount,reference_id\n")
	bom.WriteString("\ufeff\"amount\",\"reference_id\",\"payment_id\"\n")
	for i, pp := range plan {
		ref := fmt.Sprintf("Café-%s-%d", name, i)
		fmt.Fprintf(&lf, "%s,150.00,%s\n%s,200.00,\n", pp.id, ref, pp.id)
		fmt.Fprintf(&bom, "\"150\",\"%s\",\"%s\"\n\"200.0\",\"\",\"%s\"\n", ref, strings.ToUpper(pp.id), strings.ToUpper(pp.id))
	}
	win, err := charmap.Windows1252.NewEncoder().String(lf.String())
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, name)
	copies := []string{base + ".csv", base + ".crlf.csv", base + ".bom.csv", base + ".win.csv"}
	for i, text := range []string{lf.String(), strings.ReplaceAll(lf.String(), "\n", "\r\n"), bom.String(), win} {
		if err := os.WriteFile(copies[i], []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return copies
}
