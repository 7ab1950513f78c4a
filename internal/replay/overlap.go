package replay

import (
	"context"
	"sync"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// maxRun bounds a run of requests replayed together: its answers are
// paired in a number of comparisons that grows as its square.
const maxRun = 32

// overlapEnd is the end of the run of requests from list[i] that were in
// flight together: each started before one of the run had ended. A
// request sent after the one before it had its answer starts a run of
// its own, and so does one past maxRun.
func overlapEnd(list []*Exchange, i int) int {
	end := list[i].ended
	j := i + 1
	for ; j < len(list) && j-i < maxRun; j++ {
		x := list[j]
		if x.Kind != har.KindExchange || x.started.IsZero() || !x.started.Before(end) {
			break
		}
		if x.ended.After(end) {
			end = x.ended
		}
	}
	return j
}

// verifyGroup replays requests that were in flight together as the app
// sent them, together, and compares the answers as a set: the service
// promises no order between them (of ten captures of one payment sent at
// once, which gets the lock is chance), so each recorded answer is
// compared with the sandbox's answer, among those to requests of the same
// method and path, that differs from it least. A run of one is replayed
// and compared alone.
func (e *Engine) verifyGroup(ctx context.Context, group []*Exchange) ([]Difference, int, error) {
	if len(group) == 1 {
		diffs, err := e.verifyOne(ctx, group[0])
		if diffs == nil {
			return nil, 0, err
		}
		return diffs, 1, err
	}
	var sent []*Exchange
	for _, x := range group {
		if e.replayable(x) {
			e.ensure(ctx, x)
			sent = append(sent, x)
		}
	}
	answers := make([]*Answer, len(sent))
	errs := make([]error, len(sent))
	done := make([]chan struct{}, len(sent))
	for k := range done {
		done[k] = make(chan struct{})
	}
	var wg sync.WaitGroup
	for k, x := range sent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[k])
			// What the app had its answer to before it sent x goes first
			// (a bulk run reads a payment, then captures it): only
			// requests that were in flight at once go in either order.
			for m, y := range sent {
				if m != k && happenedBefore(y, x) {
					<-done[m]
				}
			}
			answers[k], errs[k] = e.send(ctx, x, x.Method, x.Path, x.Query, x.Header, x.body())
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, 0, err
		}
	}
	used := make([]bool, len(sent))
	var diffs []Difference
	for k, x := range sent {
		best, fewest := -1, 0
		for m, y := range sent {
			if used[m] || y.Method != x.Method || Template(y.Path) != Template(x.Path) {
				continue
			}
			c := &comparer{ids: e.ids.clone()}
			n := len(e.compareWith(c, x, answers[m]))
			if best < 0 || n < fewest || (n == fewest && m == k) {
				best, fewest = m, n
			}
		}
		used[best] = true
		diffs = append(diffs, e.compareAnswer(x, answers[best], "answer")...)
	}
	return diffs, len(sent), nil
}

// happenedBefore tells whether the app had a's answer before it sent b,
// as the recording's times show.
func happenedBefore(a, b *Exchange) bool {
	return !a.ended.IsZero() && !b.started.IsZero() && !a.ended.After(b.started)
}

// replayable tells whether a recorded request can be replayed, noting
// why when it cannot.
func (e *Engine) replayable(x *Exchange) bool {
	why := ""
	switch {
	case x.Status == 0:
		why = "the recording holds no answer (the service could not be reached)"
	case x.Cut:
		why = "a body was cut at the recording's bound"
	default:
		why = e.unreplayable(x)
	}
	if why != "" {
		e.notes = append(e.notes, Note{N: x.N, Method: x.Method, Path: x.Path, Why: why})
		return false
	}
	return true
}
