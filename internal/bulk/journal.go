package bulk

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/secret"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// journal is the resume journal described in the package documentation.
type journal struct {
	mu      sync.Mutex // orders writes; guards written
	written uint64     // records written to the file so far

	syncMu sync.Mutex // one fsync at a time; guards synced
	synced uint64     // records known to be on disk

	f    *os.File
	path string
	now  func() time.Time
}

const journalFormat = 1

const (
	eventRun    = "run"
	eventSend   = "send"
	eventResult = "result"
	// eventLedger names the ledger a run of the journal is recorded in
	// (see checkLedger).
	eventLedger = "ledger"

	// outcomeUnknown is OutcomeUnknown, as the journal writes it: a
	// re-run reads the payment and re-sends the row with the same
	// reference_id unless the payment shows its move.
	outcomeUnknown = OutcomeUnknown
)

type journalRecord struct {
	Event         string  `json:"event"`
	Op            Op      `json:"op,omitempty"`
	Format        int     `json:"format,omitempty"`
	Key           string  `json:"key,omitempty"`
	Line          int     `json:"line,omitempty"`
	PaymentID     string  `json:"payment_id,omitempty"`
	ReferenceID   string  `json:"reference_id,omitempty"`
	Amount        string  `json:"amount,omitempty"`
	Outcome       Outcome `json:"outcome,omitempty"`
	HTTPStatus    int     `json:"http_status,omitempty"`
	ErrorType     string  `json:"error_type,omitempty"`
	Message       string  `json:"message,omitempty"`
	PaymentStatus string  `json:"payment_status,omitempty"`
	// PID is the process of a run, on "run" records: a second run that
	// finds the journal locked names it.
	PID int `json:"pid,omitempty"`
	// Ledger and LedgerAt, on "ledger" records, are the ledger's id and
	// place (see ledger.Ledger.ID and Place).
	Ledger   string    `json:"ledger,omitempty"`
	LedgerAt string    `json:"ledger_at,omitempty"`
	At       time.Time `json:"at"`
}

// journalEntry is what the journal knows of one row: its latest send and
// the result of that send, if any.
type journalEntry struct {
	send   *journalRecord
	result *journalRecord
}

// openJournal opens or creates the journal at path, locks it for the whole
// run, checks every complete line, cuts off a torn last line, and returns
// what it records by key.
//
// The lock is what keeps two runs of one journal (a CI retry overlapping a
// slow job, a second terminal) from both sending: the second finds it held
// and stops before anything is read or sent, naming the first's process.
func openJournal(path string, op Op, now func() time.Time) (*journal, *journalIndex, error) {
	// Look before opening, so that a device or a FIFO is never opened.
	info, statErr := os.Stat(path)
	created := errors.Is(statErr, os.ErrNotExist)
	if statErr == nil {
		if why := privateFile(info); why != "" {
			return nil, nil, journalRefused(path, why)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	// Again on what was opened: the path may have changed in between.
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	if why := privateFile(info); why != "" {
		f.Close()
		return nil, nil, journalRefused(path, why)
	}
	busy, err := userfile.Lock(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("journal %s: locking it: %w", path, err)
	}
	if busy {
		holder := lastRun(f)
		f.Close()
		return nil, nil, &JournalBusyError{Path: path, Holder: holder}
	}
	entries, err := loadJournal(f, path, op, false)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if created {
		syncDir(filepath.Dir(path))
	}
	j := &journal{f: f, path: path, now: now}
	if err := j.append(journalRecord{Event: eventRun, Op: op, Format: journalFormat, PID: os.Getpid()}); err != nil {
		f.Close()
		return nil, nil, err
	}
	return j, entries, nil
}

// lastRun is the last complete "run" record of a journal another run
// holds: that run's own, written once it had the lock.
func lastRun(f *os.File) *journalRecord {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<40))
	if err != nil {
		return nil
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	var last *journalRecord
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"event":"run"`)) {
			continue
		}
		var rec journalRecord
		if json.Unmarshal(line, &rec) == nil && rec.Event == eventRun {
			last = &rec
		}
	}
	return last
}

// journalIndex is what the journal records, by key: where the latest
// "send" of each row and the result of that send are in the file. The
// records themselves stay in the file and are read when a row is met, so
// a resumed run keeps a few dozen bytes per journaled row, not the rows.
type journalIndex struct {
	f       *os.File
	path    string
	entries map[[16]byte]journalOffsets
	// ofRun counts the keys with a record a run of this op makes, for the
	// "not in this input" notice.
	ofRun int
	// sent counts the rows the journal records a send of.
	sent int
	// ledgers are the ledgers the journal's runs were recorded in, by
	// place: the ids of those met there.
	ledgers map[string][]string
}

// journalOffsets are offsets+1 of a key's records; 0 is none.
type journalOffsets struct {
	send, result int64
	ofRun        bool
}

// indexKey is the table's key for a journal key: the 16 bytes a key's hex
// spells, or a hash of a key bnpl did not write (which then matches no row).
func indexKey(key string) [16]byte {
	var k [16]byte
	if b, err := hex.DecodeString(key); err == nil && len(b) == len(k) {
		copy(k[:], b)
		return k
	}
	sum := sha256.Sum256([]byte("foreign\x1f" + key))
	copy(k[:], sum[:16])
	return k
}

// lookup is what the journal records of key, or nil.
func (ix *journalIndex) lookup(key string) (*journalEntry, error) {
	if ix == nil {
		return nil, nil
	}
	off, ok := ix.entries[indexKey(key)]
	if !ok {
		return nil, nil
	}
	e := &journalEntry{}
	var err error
	if off.send > 0 {
		if e.send, err = ix.recordAt(off.send-1, key); err != nil {
			return nil, err
		}
	}
	if off.result > 0 {
		if e.result, err = ix.recordAt(off.result-1, key); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// recordAt reads the record of key that starts at off.
func (ix *journalIndex) recordAt(off int64, key string) (*journalRecord, error) {
	br := bufio.NewReader(io.NewSectionReader(ix.f, off, 1<<40))
	line, err := br.ReadBytes('\n')
	var rec journalRecord
	if err == nil {
		err = json.Unmarshal(line, &rec)
	}
	if err == nil && rec.Key != key {
		err = fmt.Errorf("the record at byte %d is of another row", off)
	}
	if err != nil {
		return nil, &JournalError{Path: ix.path, Problem: fmt.Sprintf("changed while it was in use (%v)", err)}
	}
	return &rec, nil
}

// loadJournal reads what the journal records, a line at a time. Every
// complete line must be a record and the first a "run" record, or the
// file is not one bnpl wrote (or it was damaged since): then nothing is cut
// or changed. Only once the complete lines are known to be a journal is a
// torn last line, which a crash in the middle of a write leaves, cut off
// (unless readOnly: a dry run only reads, and skips it).
func loadJournal(f *os.File, path string, op Op, readOnly bool) (*journalIndex, error) {
	ix := &journalIndex{f: f, path: path, entries: map[[16]byte]journalOffsets{}}
	o := Options{Op: op}
	br := bufio.NewReaderSize(f, 64<<10)
	var off int64
	records, n := 0, 0
	for {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			if len(line) > 0 { // a torn last line
				if records == 0 && !tornRunRecord(line) {
					return nil, journalNotOurs(path)
				}
				if readOnly {
					break
				}
				if err := f.Truncate(off); err != nil {
					return nil, fmt.Errorf("journal %s: cutting off a torn last line: %w", path, err)
				}
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
		n++
		start := off
		off += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, at, err := parseRecord(line, records == 0)
		if err != nil {
			if records == 0 {
				return nil, journalNotOurs(path)
			}
			return nil, &JournalError{Path: path, Line: n, Problem: fmt.Sprintf("is damaged (%v); it is not the last line, so it was not torn by a crash", err)}
		}
		if at > 0 {
			// The journal was cut short while a run wrote it: what was
			// cut is lost (its rows keep their reference_ids, and the
			// ledger and the payments say which moved), the record
			// written after the cut is kept.
			start += int64(at)
			records = max(records, 1)
		}
		if records == 0 && rec.Event != eventRun {
			return nil, journalNotOurs(path)
		}
		records++
		if rec.Event == eventLedger && rec.Ledger != "" && rec.LedgerAt != "" {
			if ix.ledgers == nil {
				ix.ledgers = map[string][]string{}
			}
			ix.ledgers[rec.LedgerAt] = append(ix.ledgers[rec.LedgerAt], rec.Ledger)
		}
		if rec.Key == "" {
			continue
		}
		k := indexKey(rec.Key)
		e := ix.entries[k]
		switch rec.Event {
		case eventSend:
			if e.send == 0 {
				ix.sent++
			}
			e.send, e.result = start+1, 0
		case eventResult:
			e.result = start + 1
		default:
			continue
		}
		if !e.ofRun && o.ofRun(&rec) {
			e.ofRun = true
			ix.ofRun++
		}
		ix.entries[k] = e
	}
	return ix, nil
}

// parseRecord reads a line of the journal: a record, or, in a journal cut
// short, the record after the cut, which starts at at (see cutShort).
func parseRecord(line []byte, first bool) (rec journalRecord, at int, err error) {
	err = json.Unmarshal(line, &rec)
	if err == nil && rec.Event != "" {
		return rec, 0, nil
	}
	if tail, at, ok := cutShort(line, first); ok {
		return tail, at, nil
	}
	if err == nil {
		err = errors.New("no event")
	}
	return rec, 0, err
}

// cutShort reads a line of a journal cut short (truncated) while a run
// wrote to it: the start of a record cut in the middle, then, appended
// after the cut, a whole record. It returns that record and where it
// starts in the line. first: the line is the journal's first, whose cut
// record must be the start of a "run" record.
func cutShort(line []byte, first bool) (journalRecord, int, bool) {
	var rec journalRecord
	at := bytes.LastIndex(line, []byte(`{"event":"`))
	if at <= 0 || !bytes.HasPrefix(line, []byte(`{"event":"`)) || (first && !tornRunRecord(line[:at])) {
		return rec, 0, false
	}
	if json.Unmarshal(line[at:], &rec) != nil || rec.Event == "" {
		return rec, 0, false
	}
	return rec, at, true
}

// tornRunRecord reports whether line, the only line of a file and with
// no end, is the start of a "run" record a crash (or a journal cut short:
// a disk full, a copy stopped) cut in the middle: bnpl wrote it, and it
// records nothing yet, so it is cut off as any torn last line is.
func tornRunRecord(line []byte) bool {
	const start = `{"event":"run"`
	n := min(len(line), len(start))
	return n > 0 && string(line[:n]) == start[:n]
}

// append writes rec and fsyncs it: when append returns nil the record
// survives a crash.
//
// Workers append at once, and an fsync costs far more than a write, so the
// syncs are shared (group commit): each fsync covers every record written
// before it started, and an append whose record an earlier fsync already
// covered returns without one. Every append still returns only after its
// own record is on disk.
func (j *journal) append(rec journalRecord) error {
	rec.At = j.now().UTC()
	// The message quotes an error, which may quote an answer: the journal
	// is a file that outlives the run, so no key or escape goes into it.
	var m *secret.Masker
	rec.Message, rec.ErrorType = m.Text(rec.Message), m.Text(rec.ErrorType)
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	if _, err := j.f.Write(b); err != nil {
		j.mu.Unlock()
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	j.written++
	mine := j.written
	j.mu.Unlock()

	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	if j.synced >= mine {
		return nil
	}
	j.mu.Lock()
	covered := j.written
	j.mu.Unlock()
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	j.synced = covered
	return nil
}

func (j *journal) close() error {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.f.Close()
}

// syncDir makes a new journal's directory entry durable. Best effort: not
// every system can fsync a directory, and the records themselves are synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
