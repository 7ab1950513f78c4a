// Package walk reads every page of an offset-paged list (the payments list,
// or any list `bnpl api --paginate` follows by offset) with several pages
// in flight at once, and hands out its items in the list's order, each
// once.
//
// Offset pages shift while the list changes: a payment created during the
// walk pushes every later row one place down, one that leaves the filtered
// set pulls them up. So each page after the first starts a few rows before
// where the previous one ended (the overlap), and is read from the last
// item already handed out that it holds (the anchor): what follows the
// anchor is new, what precedes it was handed out before. A page that holds
// no item handed out recently is out of step; the walker then looks for
// the anchor around it, by the items' creation times when they have them
// (the list is newest first), and re-reads. An item that is in the list
// for the whole walk is therefore handed out exactly once.
//
// Pages read at once answer in any order, so a page may show the list as
// it was before the page handed out just now: it may still hold items
// that left the list since, between its anchor and the last item handed
// out. Such a page, when it lacks the last item, is read again, afresh,
// rather than trusted; so items come out in the list's order, each once.
//
// Memory is flat: the walker keeps the pages in flight and the ids of the
// last two pages handed out, whatever the length of the list.
package walk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Item is one element of a list.
type Item struct {
	// ID tells items apart; two items with one ID are the same item.
	ID string
	// Time is the item's creation time, the list's sort key (newest
	// first); zero when the list's items have none.
	Time time.Time
	// Raw is the item as the service answered it.
	Raw json.RawMessage
}

// Page is one answer of the list.
type Page struct {
	Items []Item
	// Total is the number of items in the whole list as the answer says;
	// negative when unknown.
	Total int
}

// Fetch reads at most limit items of the list from offset.
type Fetch func(ctx context.Context, offset, limit int) (Page, error)

// Defaults of a Walker's zero fields.
const (
	DefaultPageSize    = 20
	DefaultOverlap     = 3
	DefaultConcurrency = 4
)

// maxSearch bounds the re-reads spent looking for the anchor of one page.
const maxSearch = 40

// ErrUnsteady is returned when the list changed so fast that the walker
// could not find its place again.
var ErrUnsteady = errors.New("the list changed too fast to walk it without losing its place; try again, or narrow it (--since/--until)")

// Walker walks one list.
type Walker struct {
	Fetch Fetch
	// Start is the offset of the first item to hand out.
	Start int
	// PageSize is the limit of every read (default 20; at least 2).
	PageSize int
	// Overlap is how many items each page re-reads of its predecessor
	// (default 3, less on pages under 15; at most PageSize-1).
	Overlap int
	// Concurrency is how many reads may be in flight (default 4).
	Concurrency int
	// First, when set, is the page already read at Start with PageSize.
	First *Page
	// Progress, when set, hears the pages read so far and the pages the
	// whole list takes by the latest count.
	Progress func(read, total int)
}

// read is one page request in flight.
type read struct {
	offset int
	done   chan struct{}
	page   Page
	err    error
	cancel context.CancelFunc
	// began and ended order the read against the others: a read that
	// began after another ended shows the list as it was then or later.
	began, ended uint64
}

// Walk hands every item to emit in the list's order; emit answers false to
// stop the walk (a search that found what it wanted). It returns the first
// error of a read or of emit.
func (w *Walker) Walk(ctx context.Context, emit func(Item) (more bool, err error)) error {
	ctx, cancel := context.WithCancel(ctx)
	r := w.newRun(ctx, emit)
	defer func() {
		cancel()
		r.wg.Wait()
	}()
	for {
		page, probe, err := r.nextPage(ctx)
		if err != nil {
			return err
		}
		r.count(page)
		at, ok, err := r.place(page, probe)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		r.st.newest = max(r.st.newest, r.ended)
		r.search.reset()
		more, err := r.st.handOut(page.Items[at+1:])
		if err != nil || !more {
			return err
		}
		r.pagesRead++
		r.progress()
		r.expected = probe + len(page.Items)
		if len(page.Items) < r.size || (r.total >= 0 && r.expected >= r.total) {
			return nil
		}
	}
}

// run is one walk under way: its settings, the reads in flight, and where
// it stands in the list.
type run struct {
	w                   *Walker
	size, overlap, conc int
	step                int
	wg                  sync.WaitGroup
	sem                 chan struct{}
	clock               atomic.Uint64
	reads               map[int]*read
	st                  walkState
	search              searchState
	total, pagesRead    int
	expected            int // where the item after the last one handed out should be
	first               *Page
	began, ended        uint64 // of the read that answered the latest page
	// again is the offset to read once more, afresh, when a page turned
	// out older than what was handed out: -1 otherwise.
	again int
	// Positions are kept in the coordinates of the latest answer: when the
	// count moves between two answers, the list most likely grew or shrank
	// in front (new payments are the newest), so every position moves by
	// as much; drift predicts the same move for the next read.
	lastTotal, drift int
	ctx              context.Context
}

// newRun settles a walk's sizes: a page must re-read at least one item of
// its predecessor to show where it joins it, so pages of one item
// (limit=1) are read two at a time.
func (w *Walker) newRun(ctx context.Context, emit func(Item) (bool, error)) *run {
	size, overlap, conc := w.PageSize, w.Overlap, w.Concurrency
	if size <= 0 {
		size = DefaultPageSize
	}
	size = max(size, 2)
	if overlap <= 0 {
		overlap = min(DefaultOverlap, max(1, size/5))
	}
	overlap = min(overlap, size-1)
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	r := &run{w: w, size: size, overlap: overlap, conc: conc, step: max(size-overlap, 1),
		sem: make(chan struct{}, conc), reads: map[int]*read{}, ctx: ctx,
		st: walkState{ring: newRing(2 * size), emit: emit}, total: -1, expected: w.Start,
		again: -1, lastTotal: -1}
	// First was read at PageSize; when pages are read larger (limit=1
	// read two at a time) its shortness would look like the list's end,
	// so it is read again at the walker's size.
	if w.First != nil && (size == w.PageSize || w.PageSize <= 0 && size == DefaultPageSize) {
		p := *w.First
		r.first = &p
	}
	r.search.reset()
	return r
}

// startRead starts reading the page at off, unless it is in flight.
func (r *run) startRead(off int) {
	if _, ok := r.reads[off]; ok {
		return
	}
	rctx, rcancel := context.WithCancel(r.ctx)
	rd := &read{offset: off, done: make(chan struct{}), cancel: rcancel}
	r.reads[off] = rd
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(rd.done)
		select {
		case r.sem <- struct{}{}:
		case <-rctx.Done():
			rd.err = rctx.Err()
			return
		}
		defer func() { <-r.sem }()
		rd.began = r.clock.Add(1)
		rd.page, rd.err = r.w.Fetch(rctx, off, r.size)
		rd.ended = r.clock.Add(1)
	}()
}

// progress tells the Walker's Progress the pages read and the pages the
// list takes by the latest count.
func (r *run) progress() {
	if r.w.Progress == nil {
		return
	}
	pages := r.pagesRead
	if r.total >= 0 {
		rest := r.total - r.w.Start - r.size
		pages = 1
		if rest > 0 {
			pages += (rest + r.step - 1) / r.step
		}
	}
	r.w.Progress(r.pagesRead, max(pages, r.pagesRead))
}

// nearest answers an offset near target that is already in flight, within
// what still lets the page hold the anchor, or target.
func (r *run) nearest(target int) int {
	best := -1
	for off := range r.reads {
		if off >= target-r.step/2 && off <= target+r.overlap-1 && (best < 0 || abs(off-target) < abs(best-target)) {
			best = off
		}
	}
	if best < 0 {
		return target
	}
	return best
}

// target is the offset the next page should start at.
func (r *run) target() int {
	target := r.expected
	if r.st.handed {
		target = r.expected - r.overlap + r.drift
	}
	if r.search.active {
		target = r.search.probe + r.drift
	}
	if r.again >= 0 {
		target = r.again
	}
	return max(target, r.w.Start)
}

// nextPage answers the next page and the offset it was read at: the first
// page given, or a read, keeping conc reads in flight from there on.
func (r *run) nextPage(ctx context.Context) (Page, int, error) {
	probe := r.target()
	r.began, r.ended = 0, 0
	if r.first != nil {
		page := *r.first
		r.first = nil
		return page, probe, nil
	}
	if !r.search.active && r.again < 0 {
		probe = r.nearest(probe)
	}
	r.again = -1
	r.keepReading(probe)
	rd := r.reads[probe]
	select {
	case <-rd.done:
	case <-ctx.Done():
		return Page{}, probe, ctx.Err()
	}
	delete(r.reads, probe)
	if err := readErr(ctx, rd); err != nil {
		return Page{}, probe, err
	}
	r.began, r.ended = rd.began, rd.ended
	return rd.page, probe, nil
}

// readErr is what a finished read that failed answers the walk. A read
// the walk's interruption cut says so in its own words (the request it
// was, cut); the walk answers the interruption itself, as when it comes
// between two reads, whichever of the two the walk heard first.
func readErr(ctx context.Context, rd *read) error {
	if rd.err == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return rd.err
}

// keepReading keeps conc reads in flight from probe on, within the list
// as last counted, reusing those close enough to where a page should
// start, and drops the others.
func (r *run) keepReading(probe int) {
	want := map[int]bool{}
	off := probe
	for j := range r.conc {
		if j > 0 {
			if r.search.active || (r.total >= 0 && off+r.step >= r.total+max(r.drift, 0)) {
				break
			}
			off = r.nearest(off + r.step)
		}
		want[off] = true
		r.startRead(off)
	}
	for off, rd := range r.reads {
		if !want[off] {
			rd.cancel()
			delete(r.reads, off)
		}
	}
}

// count takes the list's count from page: a count that moved moves every
// position by as much.
func (r *run) count(page Page) {
	if page.Total < 0 {
		return
	}
	if r.lastTotal >= 0 {
		d := page.Total - r.lastTotal
		r.expected += d
		r.search.shift(d)
		r.drift = d
	}
	r.lastTotal, r.total = page.Total, page.Total
}

// place finds where page joins what was handed out: the index of its
// anchor, and ok; not ok when the page must be read again or the anchor
// looked for elsewhere.
func (r *run) place(page Page, probe int) (at int, ok bool, err error) {
	at, where := r.st.locate(page.Items)
	anchored := where == found && at >= 0
	switch {
	case where == found:
	case where == after && probe > r.w.Start:
		r.search.sawAfter(probe)
	case where == before:
		r.search.sawBefore(probe + len(page.Items))
	default:
		// The page covers where the anchor was (or starts the list)
		// and the anchor is gone: the items handed out last all left
		// the list. Go on from the items that sort after it.
		at = r.st.lastBefore(page.Items)
		where = found
	}
	if where != found {
		if r.search.tries++; r.search.tries > maxSearch {
			return 0, false, ErrUnsteady
		}
		r.search.next(r.w.Start, r.size, r.step)
		return 0, false, nil
	}
	if anchored && page.Items[at].ID != r.st.last.ID && r.began <= r.st.newest {
		// The page holds an item handed out before the last one but
		// not the last one, and may show the list as it was before
		// the page that handed that out: then what follows its
		// anchor may be items that left the list since and sort
		// before the last one, and handing them out would break
		// the order. Only a read begun after every page so far
		// tells that the items in between all left; read it again.
		r.again = probe
		return 0, false, nil
	}
	return at, true, nil
}

// Where a page lies against the last item handed out.
const (
	found  = iota // the page holds a recent item: read on from it
	before        // every item sorts before it: the list grew in front
	after         // every item sorts after it (or the page is empty): items left the list in front
	across        // the page spans its place but does not hold it
)

type walkState struct {
	ring   *ring
	emit   func(Item) (bool, error)
	handed bool
	last   Item // the last item handed out
	// newest is the latest end (in the reads' order) of the reads whose
	// pages were handed out from.
	newest uint64
}

// locate finds the last item of items that was handed out recently, and
// otherwise says where the page lies.
func (s *walkState) locate(items []Item) (int, int) {
	if !s.handed {
		return -1, found
	}
	for i := len(items) - 1; i >= 0; i-- {
		if s.ring.has(items[i].ID) {
			return i, found
		}
	}
	if len(items) == 0 {
		return 0, after
	}
	lt := s.last.Time
	if lt.IsZero() || items[0].Time.IsZero() || items[len(items)-1].Time.IsZero() {
		// No sort key to tell: take it that items left in front, the
		// more common change, and look further back.
		return 0, after
	}
	switch {
	case items[len(items)-1].Time.After(lt):
		return 0, before
	case items[0].Time.Before(lt):
		return 0, after
	}
	return 0, across
}

// lastBefore answers the index of the last item that sorts before (or with)
// the last item handed out, so that what follows it is new: -1 when none.
func (s *walkState) lastBefore(items []Item) int {
	if !s.handed || s.last.Time.IsZero() {
		return -1
	}
	at := -1
	for i, it := range items {
		if it.Time.IsZero() || it.Time.After(s.last.Time) || s.ring.has(it.ID) {
			at = i
		}
	}
	return at
}

func (s *walkState) handOut(items []Item) (bool, error) {
	for _, it := range items {
		if s.ring.has(it.ID) {
			continue
		}
		s.ring.add(it.ID)
		s.handed, s.last = true, Item{ID: it.ID, Time: it.Time}
		more, err := s.emit(it)
		if err != nil || !more {
			return false, err
		}
	}
	return true, nil
}

// searchState narrows down where the anchor went: lo is an offset known to
// be at or before it, hi one known to be after it.
type searchState struct {
	active bool
	probe  int
	lo, hi int
	tries  int
	gallop int
}

func (s *searchState) reset() { *s = searchState{lo: -1, hi: -1} }

// shift moves the bounds by d positions (the list grew by d in front).
func (s *searchState) shift(d int) {
	if s.lo >= 0 {
		s.lo = max(s.lo+d, 0)
	}
	if s.hi >= 0 {
		s.hi = max(s.hi+d, 0)
	}
	s.probe += d
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (s *searchState) sawBefore(end int) {
	if s.active && s.hi >= 0 && end >= s.hi {
		s.hi = -1 // the list moved under us: forget the old bound
	}
	s.lo = max(s.lo, end)
	s.active = true
}

func (s *searchState) sawAfter(offset int) {
	if s.active && s.lo >= 0 && offset <= s.lo {
		s.lo = -1
	}
	if s.hi < 0 || offset < s.hi {
		s.hi = offset
	}
	s.active = true
}

func (s *searchState) next(start, size, step int) {
	s.gallop++
	switch {
	case s.lo >= 0 && s.hi >= 0:
		if s.hi-s.lo <= size-1 {
			s.probe = s.lo - 1
		} else {
			s.probe = s.lo + (s.hi-s.lo)/2 - size/2
		}
	case s.lo >= 0:
		s.probe = s.lo - 1 + step*(1<<min(s.gallop-1, 20)-1)
	default:
		s.probe = s.hi - step<<min(s.gallop-1, 20)
	}
	s.probe = max(s.probe, start)
}

// ring remembers the last n ids handed out.
type ring struct {
	ids  []string
	next int
	set  map[string]int
}

func newRing(n int) *ring { return &ring{ids: make([]string, n), set: make(map[string]int, n)} }

func (r *ring) has(id string) bool { return r.set[id] > 0 }

func (r *ring) add(id string) {
	if old := r.ids[r.next]; old != "" {
		if r.set[old]--; r.set[old] <= 0 {
			delete(r.set, old)
		}
	}
	r.ids[r.next] = id
	r.set[id]++
	r.next = (r.next + 1) % len(r.ids)
}

// String is for test failures.
func (p Page) String() string { return fmt.Sprintf("%d items of %d", len(p.Items), p.Total) }
