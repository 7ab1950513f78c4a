package ledger

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/output"
)

// RunInfo is what the ledger says of a run: enough for a person to find
// it.
type RunInfo struct {
	ID      int64
	PID     int
	Op      string
	Input   string
	Journal string
	Started time.Time
	Ended   time.Time
	lock    string
	// Summarized: the run made its summary, which counted what it moved.
	Summarized bool
}

// String names the run: "run 12 (process 4242, capture of caps.csv since
// 2026-11-25 14:50:02 UTC, journal alice.journal)".
func (r *RunInfo) String() string {
	s := fmt.Sprintf("run %d (process %d%s, %s of %s since %s", r.ID, r.PID, r.onHost(), r.Op, r.Input,
		output.FormatTime(r.Started, output.TimeUTC, time.Time{}))
	if r.Journal != "" {
		s += ", journal " + r.Journal
	}
	return s + ")"
}

// Host is the machine a run of a shared (PostgreSQL) ledger runs on; ""
// for a run of the machine's own ledger.
func (r *RunInfo) Host() string {
	if h, ok := strings.CutPrefix(r.lock, "pg:"); ok {
		return h
	}
	return ""
}

func (r *RunInfo) onHost() string {
	if h := r.Host(); h != "" {
		return " on " + h
	}
	return ""
}

// BeginRun records this run, alive (see half.beginRun), and prunes the
// ledger at most once a day.
func (l *Ledger) BeginRun(op, input, journal string) error {
	if input == "" {
		input = "(rows)"
	}
	run, err := l.half.beginRun(l, func(t tx, lock string) (id int64, err error) {
		err = t.QueryRow(`INSERT INTO runs (pid, lock, started, op, input, journal) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			os.Getpid(), lock, l.stamp(), op, input, journal).Scan(&id)
		return id, err
	})
	if err != nil {
		return l.wrap(err)
	}
	l.run = run
	l.prune()
	return nil
}

// prune drops, at most once a day, the rows of runs that ended a week ago
// (their reports are written), and the moves settled and the runs ended
// long ago (keepMoves): the ledger does not grow without end.
func (l *Ledger) prune() {
	now := l.now().UTC()
	var last string
	_ = db{l}.QueryRow("SELECT value FROM meta WHERE key = 'pruned'").Scan(&last)
	if t, err := time.Parse(time.RFC3339Nano, last); err == nil && now.Sub(t) < pruneEvery {
		return
	}
	if err := l.exec("INSERT INTO meta (key, value) VALUES ('pruned', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		now.Format(time.RFC3339Nano)); err != nil {
		return
	}
	stamp := func(d time.Duration) string { return now.Add(-d).Format(time.RFC3339Nano) }
	_ = l.exec("DELETE FROM run_rows WHERE run IN (SELECT id FROM runs WHERE ended IS NOT NULL AND ended < ?)", stamp(keepRunRows))
	_ = l.exec("DELETE FROM moves WHERE updated < ? AND phase IN (?, ?, ?)", stamp(keepMoves), PhaseConfirmed, PhaseFailed, PhasePlanned)
	_ = l.exec("DELETE FROM move_outcomes WHERE updated < ?", stamp(keepMoves))
	_ = l.exec("DELETE FROM runs WHERE ended IS NOT NULL AND ended < ?", stamp(keepMoves))
	if s, ok := l.half.(*sqliteHalf); ok {
		s.dropDeadLocks(l)
	}
}

// runColumns are the columns runByID reads.
const runColumns = "id, pid, lock, op, input, journal, started, COALESCE(ended, ''), summarized"

// scanRun reads a run of runColumns.
func scanRun(scan func(...any) error) (*RunInfo, error) {
	r := &RunInfo{}
	var started, ended string
	var summarized int
	if err := scan(&r.ID, &r.PID, &r.lock, &r.Op, &r.Input, &r.Journal, &started, &ended, &summarized); err != nil {
		return nil, err
	}
	r.Summarized = summarized != 0
	r.Started, _ = time.Parse(time.RFC3339Nano, started)
	r.Ended, _ = time.Parse(time.RFC3339Nano, ended)
	return r, nil
}

// runByID reads what the ledger says of run id; nil when it does not know
// it.
func (l *Ledger) runByID(q querier, id int64) *RunInfo {
	r, err := scanRun(q.QueryRow("SELECT "+runColumns+" FROM runs WHERE id = ?", id).Scan)
	if err != nil {
		return nil
	}
	return r
}

// alive reports whether run r still lives.
func (l *Ledger) alive(r *RunInfo) bool { return l.half.alive(r.ID, r.lock) }

// RunInput is the input run id read, as it named it; "" when the ledger
// does not know the run.
func (l *Ledger) RunInput(id int64) string {
	if info := l.runByID(db{l}, id); info != nil {
		return info.Input
	}
	return ""
}

// SetInputSketch records what this run knows of its input: a sketch of
// its rows' identities (see package bulk), by which a later run of the
// same input, a copy or an edit of it, finds this one.
func (l *Ledger) SetInputSketch(sketch string) error {
	return l.exec("UPDATE runs SET input_sketch = ? WHERE id = ?", sketch, l.run)
}

// InputSketch is the sketch run id recorded of its input; "" when it
// recorded none (a run of an earlier bnpl) or the ledger does not know it.
func (l *Ledger) InputSketch(id int64) string {
	var s string
	if err := (db{l}).QueryRow("SELECT input_sketch FROM runs WHERE id = ?", id).Scan(&s); err != nil {
		return ""
	}
	return s
}

// RunInput is what a run recorded of its input: its name and its sketch.
type RunInput struct{ Name, Sketch string }

// RunInputs are the inputs of the runs the ledger knows, by run.
func (l *Ledger) RunInputs() (map[int64]RunInput, error) {
	rows, err := db{l}.Query("SELECT id, input, input_sketch FROM runs")
	if err != nil {
		return nil, l.wrap(err)
	}
	defer rows.Close()
	out := map[int64]RunInput{}
	for rows.Next() {
		var id int64
		var in RunInput
		if err := rows.Scan(&id, &in.Name, &in.Sketch); err != nil {
			return nil, l.wrap(err)
		}
		out[id] = in
	}
	return out, l.wrap(rows.Err())
}
