package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"os"
	"strings"
	"sync"
)

// A walMark tells whether a state file has changed: it is the header of
// the file's WAL index (the -shm file beside it; sqlite.org/walformat.html),
// which every commit to the file rewrites, whichever process makes it,
// with a change counter it increases, the WAL's last frame and its salts.
// Two reads that find the same mark found the same committed state, and a
// read that begins after a mark was read sees that state or a later one.
// So what a read answered can be answered again, without reading, for as
// long as the mark stays the same (viewCache): a lookup of a payment by
// its key costs SQLite a read transaction, two locks of the -shm file and
// a statement, about a quarter of a served read; a mark costs one pread.
type walMark [walHeaderSize]byte

// walHeaderSize is the size of one copy of the WAL-index header. SQLite
// writes it twice, the second copy first, and a reader that finds the two
// copies different knows it caught a commit under way.
const walHeaderSize = 48

// walWatch reads the marks of one state file.
type walWatch struct {
	f *os.File
}

// watchWAL answers a watch of the state file at path, whose pool db has
// opened it: nil when the file does not keep a WAL index to watch (it is
// not in WAL mode, or its -shm file cannot be read), and the state is
// then read every time.
func watchWAL(ctx context.Context, path string, db *sql.DB) *walWatch {
	var mode string
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || !strings.EqualFold(mode, "wal") {
		return nil
	}
	f, err := os.Open(path + "-shm")
	if err != nil {
		return nil
	}
	w := &walWatch{f: f}
	if _, ok := w.mark(); !ok {
		f.Close()
		return nil
	}
	return w
}

// mark reads the file's mark; ok is false when a commit was writing it
// (the two copies differ) or it cannot be read: the caller reads the
// state itself and keeps nothing.
func (w *walWatch) mark() (m walMark, ok bool) {
	if w == nil {
		return m, false
	}
	var b [2 * walHeaderSize]byte
	if n, err := w.f.ReadAt(b[:], 0); n != len(b) || err != nil {
		return m, false
	}
	first, second := b[:walHeaderSize], b[walHeaderSize:]
	const isInit = 12 // the header's byte that says it was written
	if first[isInit] != 1 || !bytes.Equal(first, second) {
		return m, false
	}
	copy(m[:], first)
	return m, true
}

func (w *walWatch) close() error {
	if w == nil {
		return nil
	}
	return w.f.Close()
}

// viewCache keeps what the hot reads answered (a payment's view row, the
// clock's offset) for as long as the state file's mark stays the one they
// were read at. A new mark empties it: every commit, of this process or
// another, does. It holds at most maxCachedViews rows and
// maxCachedViewBytes of views.
type viewCache struct {
	mu     sync.RWMutex
	mark   walMark
	views  map[viewKey]viewRow
	bytes  int
	offset any // the clock_offset value read at mark, when offOK
	offOK  bool
}

const (
	maxCachedViews     = 4096
	maxCachedViewBytes = 16 << 20
)

// viewKey is what a payment's view is read by: its id, seen by a
// merchant's key in one mode.
type viewKey struct {
	id, merchant string
	isTest       bool
}

// viewRow is a row of viewQuery: the view is shared by every request
// that gets it and never written to.
type viewRow struct {
	status    string
	createdAt int64
	view      []byte
	offset    any
}

// row answers the row kept for k at mark m.
func (c *viewCache) row(m walMark, k viewKey) (viewRow, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.mark != m {
		return viewRow{}, false
	}
	r, ok := c.views[k]
	return r, ok
}

// clockOffset answers the clock offset kept at mark m.
func (c *viewCache) clockOffset(m walMark) (any, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.offset, c.offOK && c.mark == m
}

// at makes m the cache's mark, emptying it if it held another. Called
// with mu held.
func (c *viewCache) at(m walMark) {
	if c.mark == m {
		return
	}
	c.mark, c.views, c.bytes, c.offset, c.offOK = m, nil, 0, nil, false
}

// putRow keeps r, read for k by a read that began after mark m was read.
// A mark other than the cache's is newer or older: the read that brings
// it cannot tell which, so it takes over the cache. A reader that comes
// with the older mark again finds nothing and reads, which is all an
// older mark costs.
func (c *viewCache) putRow(m walMark, k viewKey, r viewRow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at(m)
	if _, ok := c.views[k]; ok || len(r.view) > maxCachedViewBytes {
		return
	}
	if len(c.views) >= maxCachedViews || c.bytes+len(r.view) > maxCachedViewBytes {
		for old, kept := range c.views { // any one: they are all as fresh
			delete(c.views, old)
			c.bytes -= len(kept.view)
			if len(c.views) < maxCachedViews && c.bytes+len(r.view) <= maxCachedViewBytes {
				break
			}
		}
	}
	if c.views == nil {
		c.views = make(map[viewKey]viewRow)
	}
	c.views[k] = r
	c.bytes += len(r.view)
	c.offset, c.offOK = r.offset, true
}

// putClockOffset keeps the clock offset v, read after mark m was read.
func (c *viewCache) putClockOffset(m walMark, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at(m)
	c.offset, c.offOK = v, true
}

// carryClock keeps the clock offset the cache holds at before for after,
// when the writer's transaction that began at before (the write lock
// held, so that no other commit came between) was the one commit
// between the two: no job of the writer changes the clock (it moves in
// transactions of its own, AdvanceClockBy and Reset), so the offset at
// before is the offset at after. Every commit bumps the mark's change
// counter by one (its restart of the WAL does not), so a counter one
// past before's says no other process committed after the writer. The
// views are not carried: the transaction may have changed any payment.
// Under checkouts, whose groups commit hundreds of times a second, the
// clock each one reads is then kept from one commit to the next instead
// of read again after each.
func (c *viewCache) carryClock(before, after walMark) {
	if changeCounter(after) != changeCounter(before)+1 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mark != before || !c.offOK {
		return
	}
	offset := c.offset
	c.at(after)
	c.offset, c.offOK = offset, true
}

// changeCounter is the mark's count of commits (iChange, the header's
// third word, in the machine's byte order).
func changeCounter(m walMark) uint32 { return binary.NativeEndian.Uint32(m[8:12]) }
