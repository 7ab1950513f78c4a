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
	"time"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// A journal is the file of JSON lines an earlier bnpl kept beside a
// bulk run's input (see the package documentation): its runs' sends and
// results. The ledger now holds a run whole, and a journal is only read:
// imported into the ledger once, by the first run of its input that finds
// it (importJournal), and left as it was.

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

// journalEntry is what is recorded of one row for a run of its input: its
// latest send and the result of that send, if any, and the old journal
// they were imported from, if they were.
type journalEntry struct {
	send    *journalRecord
	result  *journalRecord
	journal string
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
		if !e.ofRun && (rec.Op == o.Op || (o.Op == OpApply && rec.Op.valid())) {
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

// importJournal imports the old journal of the run, if there is one (at
// Options.JournalPath), into the ledger: the latest send of each row it
// records, and the result of that send, as this run's record, which this
// run and every later run of its input take up. A journal is imported
// once (by its content, wherever it is): the same journal found again is
// left alone. It is only read, never locked nor changed. A journal whose
// earlier runs sent moves recorded in a ledger gone from where this one is
// stops the run first (see LedgerLostError).
func (b *Batch) importJournal() error {
	o, l := b.r.o, b.r.ledger
	if o.JournalPath == "" {
		return nil
	}
	data, ix, err := readJournal(o.JournalPath, o.Op)
	if err != nil || ix == nil {
		return err
	}
	defer ix.f.Close()
	digest := ledger.JournalDigest(data)
	if done, err := l.JournalImported(digest); done || err != nil {
		return l.Unusable(err)
	}
	if err := ledgerLost(l, ix, o.JournalPath, o.LedgerLost); err != nil {
		return err
	}
	moves, err := ix.moves(l.Scope())
	if err != nil {
		return err
	}
	done, err := l.ImportJournal(digest, o.JournalPath, moves)
	if err != nil {
		return l.Unusable(err)
	}
	if done {
		o.notice("%s: journal %s, kept by an earlier bnpl, imported into the ledger of bulk moves (%d %s): the ledger holds the run from now on; the journal is left as it was, no longer written nor needed",
			o.Op, o.JournalPath, len(moves), plural(len(moves), "row", "rows"))
	}
	return nil
}

// readJournal reads the journal at path, if there is one, without locking
// or changing it: its content and its index; nil and no error when there
// is none.
func readJournal(path string, op Op) ([]byte, *journalIndex, error) {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	if why := privateFile(info); why != "" {
		return nil, nil, journalRefused(path, why)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	if info, err = f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, journalRefused(path, "is not a regular file")
	}
	ix, err := loadJournal(f, path, op, true)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	// The index reads its records from the file: it stays open for them,
	// and is closed with the run (see Batch.Close).
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<40))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return data, ix, nil
}

// moves are the journal's rows as the ledger imports them: each row's
// latest send and the result of that send.
func (ix *journalIndex) moves(scope string) ([]ledger.ImportedMove, error) {
	out := make([]ledger.ImportedMove, 0, len(ix.entries))
	for k := range ix.entries {
		key := hex.EncodeToString(k[:])
		e, err := ix.lookup(key)
		if err != nil {
			return nil, err
		}
		if e == nil || (e.send == nil && e.result == nil) {
			continue // a key bnpl did not write matches no row
		}
		m := ledger.ImportedMove{MoveID: ledger.MoveID(scope, key)}
		if e.send != nil {
			m.Op, m.SentRef, m.SentAmount = string(e.send.Op), e.send.ReferenceID, e.send.Amount
		}
		if r := e.result; r != nil {
			m.Op, m.Outcome, m.ReferenceID, m.Amount = string(r.Op), string(r.Outcome), r.ReferenceID, r.Amount
			m.HTTPStatus, m.ErrorType, m.Message, m.PaymentStatus = r.HTTPStatus, r.ErrorType, r.Message, r.PaymentStatus
		}
		out = append(out, m)
	}
	return out, nil
}
