package replay

import (
	"bytes"
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
	first := precedence(e.lastShown, sent)
	var wg sync.WaitGroup
	for k, x := range sent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[k])
			for m := range sent {
				if first[m][k] {
					select {
					case <-done[m]:
					case <-ctx.Done(): // send answers ctx's error
					}
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

// precedence answers, for requests in flight together, which must be
// sent before which (first[m][k]: sent[m] before sent[k]), the order the
// recording shows the service took them in; the others go at once, in
// either order:
//   - what the app had its answer to before it sent a request (a bulk run
//     reads a payment, then captures it);
//   - checkouts in the order the service made their payments;
//   - a read and a write of one payment in the order the read's answer
//     shows: after the write when it shows what the write made (a payment
//     read while its capture was in flight that lists the capture), before
//     when it is that payment and shows none of it;
//   - two writes of one payment in the order their answers show.
//
// shown is, by recorded payment id, the last exchange before them whose
// answer showed the payment whole (see Engine.noteShown): what it showed
// is no write's mark. Should a recording's times and answers contradict
// each other into a cycle, only what the times say is kept, and should
// even the times (entries of no duration, or of times that do not add up)
// make one, only the order the requests started in: a cycle would wait
// forever.
func precedence(shown map[string]*Exchange, sent []*Exchange) [][]bool {
	o := &orderer{shown: shown, group: sent, base: map[*Exchange][][]byte{}}
	n := len(sent)
	build := func(answers bool) [][]bool {
		first := make([][]bool, n)
		for m := range first {
			first[m] = make([]bool, n)
		}
		for m, y := range sent {
			for k, x := range sent {
				if m == k {
					continue
				}
				if happenedBefore(y, x) || createdBefore(y, x) {
					first[m][k] = true
				}
				if !answers || happenedBefore(y, x) || happenedBefore(x, y) {
					continue
				}
				if after, ok := o.readOrder(x, y); ok {
					if after {
						first[m][k] = true // y, the write, before x
					} else {
						first[k][m] = true
					}
				}
				if o.writeShown(y, x) && !o.writeShown(x, y) {
					first[m][k] = true
				}
			}
		}
		return first
	}
	if first := build(true); acyclic(first) {
		return first
	}
	first := build(false)
	if !acyclic(first) {
		for m := range first {
			for k := range m + 1 { // sent is in the order the requests started
				first[m][k] = false
			}
		}
	}
	return first
}

// orderer finds the order the service took a run's requests in from
// what their answers show.
type orderer struct {
	shown map[string]*Exchange
	group []*Exchange
	base  map[*Exchange][][]byte  // each write's marks, less what its payment showed before
	bytes map[*Exchange][2][]byte // each exchange's body and answer, read once
}

// bodies answers x's body and answer, read from the recording once.
func (o *orderer) bodies(x *Exchange) (body, answer []byte) {
	if o.bytes == nil {
		o.bytes = map[*Exchange][2][]byte{}
	}
	b, ok := o.bytes[x]
	if !ok {
		b = [2][]byte{x.body(), x.answer()}
		o.bytes[x] = b
	}
	return b[0], b[1]
}

// readOrder tells, for x a read and y a write of the same payment sent at
// once, whether the service answered x after it took y (after true) or
// before (after false); ok is false where the recording cannot tell: x is
// not a read, y not a write the service took, or y's effect leaves no
// mark to look for.
func (o *orderer) readOrder(x, y *Exchange) (after, ok bool) {
	if x.Method != http.MethodGet || y.Method == http.MethodGet || y.Status/100 != 2 || x.Status/100 != 2 {
		return false, false
	}
	payments := uuidInside().FindAllString(y.Path, -1)
	if len(payments) == 0 {
		return false, false
	}
	_, answer := o.bodies(x)
	own, same := false, false
	for _, id := range payments {
		if strings.Contains(x.Path, id) {
			own = true
		}
		if strings.Contains(x.Path, id) || bytes.Contains(answer, []byte(id)) {
			same = true
		}
	}
	if !same {
		return false, false
	}
	marks := o.marks(y, x, payments)
	if len(marks) == 0 {
		return false, false
	}
	for _, m := range marks {
		if bytes.Contains(answer, m) {
			return true, true
		}
	}
	// A list may leave out what the write made; the payment itself would
	// show it.
	return false, own
}

// writeShown tells whether the answer to x, a write of the same payment
// as y the service took, shows y's effect: the service took y first (the
// second capture of a payment answers the payment with the first). It
// does when x's answer holds a text y's body sent that nothing else of
// the payment did, or every id y's answer holds and more (a write's
// answer holds the payment, with what came before it).
func (o *orderer) writeShown(y, x *Exchange) bool {
	if x.Method == http.MethodGet || y.Method == http.MethodGet || x.Status/100 != 2 || y.Status/100 != 2 {
		return false
	}
	payments := uuidInside().FindAllString(y.Path, -1)
	if len(payments) == 0 || !namesAny(x.Path, payments) {
		return false
	}
	_, answer := o.bodies(x)
	for _, m := range o.marks(y, x, payments) {
		if m[0] == '"' && bytes.Contains(answer, m) {
			return true
		}
	}
	_, yAnswer := o.bodies(y)
	ys := idSet(yAnswer)
	return len(ys) > 0 && subset(ys, idSet(answer))
}

// marks are what only y's effect shows in a later read of its payments:
// each text its body sent (as JSON writes it) and each id its answer holds
// that its request did not name (a capture's id), that the payments did
// not show before the run (a capture made before is in every answer of
// its payment since, and so is the order's reference a capture may be
// sent with), nor another write of the run than x, the one looked at,
// sent, or answered before y.
func (o *orderer) marks(y, x *Exchange, payments []string) [][]byte {
	base, ok := o.base[y]
	if !ok {
		base = writeMarks(y)
		for _, p := range payments {
			if before := o.shown[p]; before != nil {
				base = without(base, before.body(), before.answer())
			}
		}
		o.base[y] = base
	}
	out := base
	_, yAnswer := o.bodies(y)
	ys := idSet(yAnswer)
	for _, e := range o.group {
		if e == y || e == x || e.Method == http.MethodGet || !namesAny(e.Path, payments) {
			continue
		}
		body, answer := o.bodies(e)
		out = without(out, body) // e sent it too
		if subset(idSet(answer), ys) {
			// e came before y (y's answer holds all e's did, and more):
			// what e's answer shows is e's, not y's. (A later write's
			// answer shows y's marks too: they stay y's.)
			out = without(out, answer)
		}
	}
	return out
}

// subset tells whether a holds fewer ids than b, every one of them in b.
func subset(a, b map[string]bool) bool {
	if len(a) >= len(b) {
		return false
	}
	for id := range a {
		if !b[id] {
			return false
		}
	}
	return true
}

// writeMarks are each text a write's body sent, as JSON writes it, and
// each id its answer holds that its request did not name.
func writeMarks(y *Exchange) [][]byte {
	var out [][]byte
	for v := range texts(y.body()) {
		out = append(out, jsonForms(v)...)
	}
	sent := y.Path + " " + y.Query + " " + string(y.body())
	for _, id := range uuidInside().FindAllString(string(y.answer()), -1) {
		if !strings.Contains(sent, id) {
			out = append(out, []byte(id))
		}
	}
	return out
}

// without answers marks less those found in any of bodies, in a new slice.
func without(marks [][]byte, bodies ...[]byte) [][]byte {
	var kept [][]byte
	for _, m := range marks {
		found := false
		for _, b := range bodies {
			if bytes.Contains(b, m) {
				found = true
				break
			}
		}
		if !found {
			kept = append(kept, m)
		}
	}
	return kept
}

// jsonForms are the ways a JSON answer may write the string v: as Go's
// encoder does (<, > and & escaped) and as most others do.
func jsonForms(v string) [][]byte {
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	p := bytes.TrimSuffix(plain.Bytes(), []byte{'\n'})
	escaped, _ := json.Marshal(v)
	if bytes.Equal(p, escaped) {
		return [][]byte{p}
	}
	return [][]byte{p, escaped}
}

// namesAny tells whether a path names one of ids.
func namesAny(path string, ids []string) bool {
	for _, id := range ids {
		if strings.Contains(path, id) {
			return true
		}
	}
	return false
}

// idSet is the ids a body holds.
func idSet(b []byte) map[string]bool {
	out := map[string]bool{}
	for _, id := range uuidInside().FindAllString(string(b), -1) {
		out[id] = true
	}
	return out
}

// acyclic tells whether an order holds no cycle.
func acyclic(first [][]bool) bool {
	const (
		unseen = iota
		open
		closed
	)
	state := make([]int, len(first))
	var visit func(m int) bool
	visit = func(m int) bool {
		state[m] = open
		for k, yes := range first[m] {
			if !yes {
				continue
			}
			if state[k] == open || (state[k] == unseen && !visit(k)) {
				return false
			}
		}
		state[m] = closed
		return true
	}
	for m := range first {
		if state[m] == unseen && !visit(m) {
			return false
		}
	}
	return true
}

// noteShown notes, for each payment a run of exchanges showed whole (a
// 2xx answer to a request of its own path, or the checkout that made it),
// the last exchange that did: what it showed is no later write's mark.
func (e *Engine) noteShown(run []*Exchange) {
	if e.lastShown == nil {
		e.lastShown = map[string]*Exchange{}
	}
	for _, x := range run {
		if x.Kind != har.KindExchange || x.Status/100 != 2 {
			continue
		}
		for _, id := range uuidInside().FindAllString(x.Path, -1) {
			e.lastShown[id] = x
		}
		if x.Method == http.MethodPost && strings.HasSuffix(x.Path, "/checkout") {
			var body struct {
				Payment struct {
					ID string `json:"id"`
				} `json:"payment"`
			}
			if json.Unmarshal(x.answer(), &body) == nil && body.Payment.ID != "" {
				e.lastShown[body.Payment.ID] = x
			}
		}
	}
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
