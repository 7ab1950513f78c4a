package replay

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// maxRun bounds a run of requests replayed together: its answers are
// paired in a number of comparisons that grows as its square.
const maxRun = 32

// overlapEnd is the end of the run of requests from list[i] that were in
// flight together: each started before one of the run had ended. A
// request sent after the one before it had its answer starts a run of
// its own, and so does one past maxRun, and one that names an id the
// answer of one of the run made known (a recorder may write a checkout's
// end after the app has sent the capture of its payment: the id must be
// learnt from that answer before the capture is replayed).
func overlapEnd(list []*Exchange, i int) int {
	end := list[i].ended
	j := i + 1
	for ; j < len(list) && j-i < maxRun; j++ {
		x := list[j]
		if x.Kind != har.KindExchange || x.started.IsZero() || !x.started.Before(end) || revealedIn(list[i:j], x) {
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
// compared with the sandbox's answer it is paired with (pairAnswers). A
// run of one is replayed and compared alone.
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
				if m != k && (happenedBefore(y, x) || createdBefore(y, x)) {
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
	paired := e.pairAnswers(sent, answers)
	var diffs []Difference
	for k, x := range sent {
		diffs = append(diffs, e.compareAnswer(x, answers[paired[k]], "answer")...)
	}
	return diffs, len(sent), nil
}

// createdBefore tells whether the service made a's checkout before b's,
// both sent at once: their answers' payments' created_at say in which
// order it made them, which lists by created_at keep, so the sandbox is
// asked in that order.
func createdBefore(a, b *Exchange) bool {
	ta, okA := checkoutCreated(a)
	tb, okB := checkoutCreated(b)
	return okA && okB && ta.Before(tb)
}

// checkoutCreated is when the service made the payment of a checkout it
// took.
func checkoutCreated(x *Exchange) (time.Time, bool) {
	if x.Method != http.MethodPost || x.Status/100 != 2 || !strings.HasSuffix(x.Path, "/checkout") {
		return time.Time{}, false
	}
	var body struct {
		Payment struct {
			CreatedAt time.Time `json:"created_at"`
		} `json:"payment"`
	}
	if json.Unmarshal(x.answer(), &body) != nil || body.Payment.CreatedAt.IsZero() {
		return time.Time{}, false
	}
	return body.Payment.CreatedAt, true
}

// happenedBefore tells whether the app had a's answer before it sent b,
// as the recording's times show.
func happenedBefore(a, b *Exchange) bool {
	return !a.ended.IsZero() && !b.started.IsZero() && !a.ended.After(b.started)
}

// revealedIn tells whether an answer of run made known an id b names.
func revealedIn(run []*Exchange, b *Exchange) bool {
	for _, a := range run {
		if revealed(a, b) {
			return true
		}
	}
	return false
}

// revealed tells whether b's request names an id that is in a's answer
// and not in a's request.
func revealed(a, b *Exchange) bool {
	if a == b || len(a.answer()) == 0 {
		return false
	}
	sent := a.Path + " " + a.Query + " " + string(a.body())
	asked := b.Path + " " + b.Query + " " + string(b.body())
	for _, id := range uuidInside().FindAllString(string(a.answer()), -1) {
		if !strings.Contains(sent, id) && strings.Contains(asked, id) {
			return true
		}
	}
	return false
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
