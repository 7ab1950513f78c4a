package walk

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// fakeList is a list newest first that changes while it is read: change
// runs before every read, under the list's lock.
type fakeList struct {
	mu     sync.Mutex
	items  []Item
	reads  int
	change func(l *fakeList)
	fail   error
	clock  int
	noTime bool

	// stir, when set, has every read yield the processor a random
	// number of times before it reaches the list, so that the reads in
	// flight reach it in ever other orders: a page read early may be
	// handed out after one read late, as happens on a loaded machine.
	stirMu sync.Mutex
	stir   *rand.Rand
}

func newFakeList(n int) *fakeList {
	l := &fakeList{}
	for i := 0; i < n; i++ {
		l.items = append(l.items, l.make())
	}
	slices.Reverse(l.items) // newest first
	return l
}

// make is a new item, newer than every item so far.
func (l *fakeList) make() Item {
	l.clock++
	it := Item{ID: fmt.Sprintf("p%05d", l.clock), Raw: []byte(`{}`)}
	if !l.noTime {
		it.Time = t0.Add(time.Duration(l.clock) * time.Second)
	}
	return it
}

func (l *fakeList) fetch(ctx context.Context, offset, limit int) (Page, error) {
	if l.stir != nil {
		l.stirMu.Lock()
		n := l.stir.IntN(16)
		l.stirMu.Unlock()
		for range n {
			runtime.Gosched()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads++
	if l.fail != nil {
		return Page{}, l.fail
	}
	if l.change != nil {
		l.change(l)
	}
	end := min(offset+limit, len(l.items))
	var items []Item
	if offset < end {
		items = append(items, l.items[offset:end]...)
	}
	return Page{Items: items, Total: len(l.items)}, nil
}

func (l *fakeList) ids() []string {
	var ids []string
	for _, it := range l.items {
		ids = append(ids, it.ID)
	}
	return ids
}

func collect(t *testing.T, w *Walker, stopAfter int) []Item {
	t.Helper()
	var got []Item
	err := w.Walk(context.Background(), func(it Item) (bool, error) {
		got = append(got, it)
		return stopAfter <= 0 || len(got) < stopAfter, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func itemIDs(items []Item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

func TestWalkStaticListInOrder(t *testing.T) {
	for _, n := range []int{0, 1, 19, 20, 21, 40, 103} {
		for _, conc := range []int{1, 4, 9} {
			l := newFakeList(n)
			var progress [][2]int
			w := &Walker{Fetch: l.fetch, Concurrency: conc, Progress: func(r, tot int) { progress = append(progress, [2]int{r, tot}) }}
			got := collect(t, w, 0)
			if fmt.Sprint(itemIDs(got)) != fmt.Sprint(l.ids()) {
				t.Fatalf("n=%d conc=%d: got %v, want %v", n, conc, itemIDs(got), l.ids())
			}
			// 17 new items a page after the first: pages = 1 + ceil((n-20)/17).
			pages := 1
			if n > 20 {
				pages += (n - 20 + 16) / 17
			}
			if len(progress) != pages || progress[len(progress)-1] != [2]int{pages, pages} {
				t.Fatalf("n=%d conc=%d: progress %v, want %d pages", n, conc, progress, pages)
			}
			// Reads past the end may be in flight when the walk ends,
			// but no more than one window of them.
			if l.reads > pages+conc {
				t.Fatalf("n=%d conc=%d: %d reads for %d pages", n, conc, l.reads, pages)
			}
		}
	}
}

func TestWalkStart(t *testing.T) {
	l := newFakeList(50)
	got := collect(t, &Walker{Fetch: l.fetch, Start: 7}, 0)
	if fmt.Sprint(itemIDs(got)) != fmt.Sprint(l.ids()[7:]) {
		t.Fatalf("got %v", itemIDs(got))
	}
	// A first page already read is not read again.
	first, _ := l.fetch(context.Background(), 0, 20)
	l.reads = 0
	got = collect(t, &Walker{Fetch: l.fetch, First: &first, Concurrency: 1}, 0)
	if fmt.Sprint(itemIDs(got)) != fmt.Sprint(l.ids()) || l.reads != 2 {
		t.Fatalf("got %v in %d reads", itemIDs(got), l.reads)
	}
}

// A first page read with limit=1 holds one item although the list goes
// on: the walker, which reads such pages two at a time, reads it again
// rather than taking its shortness for the list's end.
func TestWalkFirstPageOfOne(t *testing.T) {
	l := newFakeList(5)
	first, _ := l.fetch(context.Background(), 0, 1)
	got := collect(t, &Walker{Fetch: l.fetch, First: &first, PageSize: 1, Concurrency: 1}, 0)
	if fmt.Sprint(itemIDs(got)) != fmt.Sprint(l.ids()) {
		t.Fatalf("got %v, want %v", itemIDs(got), l.ids())
	}
}

func TestWalkStopsEarly(t *testing.T) {
	l := newFakeList(1000)
	got := collect(t, &Walker{Fetch: l.fetch, Concurrency: 4}, 30)
	if len(got) != 30 || fmt.Sprint(itemIDs(got)) != fmt.Sprint(l.ids()[:30]) {
		t.Fatalf("got %v", itemIDs(got))
	}
	// Two pages hold the first 30; at most a window of 4 is read ahead.
	if l.reads > 2+4 {
		t.Fatalf("%d reads to stop at 30 of 1000", l.reads)
	}
}

func TestWalkError(t *testing.T) {
	l := newFakeList(100)
	boom := errors.New("boom")
	n := 0
	err := (&Walker{Fetch: l.fetch}).Walk(context.Background(), func(Item) (bool, error) {
		if n++; n == 25 {
			l.mu.Lock()
			l.fail = boom
			l.mu.Unlock()
		}
		return true, nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	err = (&Walker{Fetch: newFakeList(100).fetch}).Walk(context.Background(), func(Item) (bool, error) { return false, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("emit error: got %v", err)
	}
}

// checkWalk walks a changing list and checks that every item present for
// the whole walk is handed out exactly once, that no item is handed out
// twice, and that they come newest first (told by the ids, which count up
// as items are made, even where the walker sees no times).
func checkWalk(t *testing.T, l *fakeList, w *Walker) {
	t.Helper()
	l.mu.Lock()
	before := map[string]bool{}
	for _, id := range l.ids() {
		before[id] = true
	}
	l.mu.Unlock()
	everGone := map[string]bool{}
	change := l.change
	l.change = func(l *fakeList) {
		old := map[string]bool{}
		for _, id := range l.ids() {
			old[id] = true
		}
		change(l)
		now := map[string]bool{}
		for _, id := range l.ids() {
			now[id] = true
		}
		for id := range old {
			if !now[id] {
				everGone[id] = true
			}
		}
	}
	l.stir = rand.New(rand.NewPCG(uint64(len(before)), 9))
	w.Fetch = l.fetch
	got := collect(t, w, 0)
	seen := map[string]int{}
	for i, it := range got {
		if seen[it.ID]++; seen[it.ID] > 1 {
			t.Fatalf("%s handed out twice", it.ID)
		}
		if i > 0 && it.ID >= got[i-1].ID {
			t.Fatalf("%s after %s: out of order", it.ID, got[i-1].ID)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	stable := 0
	for id := range before {
		if everGone[id] {
			continue
		}
		stable++
		if seen[id] != 1 {
			t.Fatalf("%s was in the list the whole walk but handed out %d times (reads %d)", id, seen[id], l.reads)
		}
	}
	if stable == 0 {
		t.Fatal("nothing stayed: the test tests nothing")
	}
}

// TestWalkCreatedInFront: items created during the walk enter at the front
// and push everything down, by up to three pages between two reads.
func TestWalkCreatedInFront(t *testing.T) {
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 1))
		for _, noTime := range []bool{false, true} {
			if noTime && seed%2 == 1 {
				continue
			}
			l := newFakeList(300)
			l.noTime = noTime
			maxNew := []int{1, 4, 10, 25}[seed%4]
			if noTime {
				maxNew = 2 // without times only a shift within the overlap is told apart
			}
			l.change = func(l *fakeList) {
				for range rng.IntN(maxNew + 1) {
					l.items = slices.Insert(l.items, 0, l.make())
				}
			}
			checkWalk(t, l, &Walker{Concurrency: 1 + int(seed%5)})
		}
	}
}

// TestWalkLeavesAhead: items leave the list (a status change out of the
// filter) before the walk's position, by more than the overlap: every
// later item moves up and a page read at the old offset would skip them.
func TestWalkLeavesAhead(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 2))
		for _, noTime := range []bool{false, true} {
			l := newFakeList(400)
			l.noTime = noTime
			mortal := map[string]bool{}
			for i, it := range l.items {
				if i%3 == 0 {
					mortal[it.ID] = true
				}
			}
			maxGone := []int{1, 4, 12, 40}[seed%4]
			l.change = func(l *fakeList) {
				for range rng.IntN(maxGone + 1) {
					var cands []int
					for i, it := range l.items {
						if mortal[it.ID] {
							cands = append(cands, i)
						}
					}
					if len(cands) == 0 {
						return
					}
					i := cands[rng.IntN(len(cands))]
					delete(mortal, l.items[i].ID)
					l.items = slices.Delete(l.items, i, i+1)
				}
			}
			checkWalk(t, l, &Walker{Concurrency: 1 + int(seed%5)})
		}
	}
}

// TestWalkChurn mixes both, and items handed out last leaving the list.
func TestWalkChurn(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 3))
		l := newFakeList(500)
		mortal := map[string]bool{}
		for i, it := range l.items {
			if rng.IntN(4) == 0 || (i/20)%5 == 2 {
				mortal[it.ID] = true // some runs of a whole page go
			}
		}
		l.change = func(l *fakeList) {
			for range rng.IntN(5) {
				l.items = slices.Insert(l.items, 0, l.make())
			}
			for range rng.IntN(8) {
				i := rng.IntN(len(l.items))
				if mortal[l.items[i].ID] {
					delete(mortal, l.items[i].ID)
					l.items = slices.Delete(l.items, i, i+1)
				}
			}
		}
		checkWalk(t, l, &Walker{Concurrency: 1 + int(seed%6), PageSize: 8 + int(seed%13)})
	}
}

// Pages of one or two items (`api --paginate -f limit=1`) still overlap
// their predecessor, so the walk ends with every item once.
func TestWalkTinyPages(t *testing.T) {
	for _, size := range []int{1, 2, 3} {
		for _, n := range []int{0, 1, 2, 5} {
			l := newFakeList(n)
			done := make(chan []Item, 1)
			go func() { done <- collect(t, &Walker{Fetch: l.fetch, PageSize: size, Concurrency: 2}, 0) }()
			select {
			case got := <-done:
				if fmt.Sprint(itemIDs(got)) != fmt.Sprint(l.ids()) {
					t.Fatalf("size=%d n=%d: got %v, want %v", size, n, itemIDs(got), l.ids())
				}
			case <-time.After(time.Minute):
				t.Fatalf("size=%d n=%d: the walk never ended", size, n)
			}
		}
	}
}

// A read cut by the walk's interruption answers the interruption itself,
// not the read's own words for it, even when the walk hears of the read
// first: Ctrl-C during a search reads the same whenever it comes.
func TestAReadCutByTheInterruptionAnswersTheInterruption(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cut := &read{err: fmt.Errorf("GET /api/v2/payments: interrupted: %w", context.Canceled)}
	if err := readErr(ctx, cut); err != context.Canceled {
		t.Errorf("a cut read, the walk interrupted: %v, want the interruption itself", err)
	}
	boom := errors.New("boom")
	if err := readErr(context.Background(), &read{err: boom}); err != boom {
		t.Errorf("a failed read, the walk going on: %v, want the read's error", err)
	}
	if err := readErr(ctx, &read{}); err != nil {
		t.Errorf("a read that succeeded: %v", err)
	}
}
