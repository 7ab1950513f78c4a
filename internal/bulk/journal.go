package bulk

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
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

	// outcomeUnknown exists only in the journal: the report says failed,
	// with a message that the row will be re-sent.
	outcomeUnknown Outcome = "unknown"
)

type journalRecord struct {
	Event         string    `json:"event"`
	Op            Op        `json:"op,omitempty"`
	Format        int       `json:"format,omitempty"`
	Key           string    `json:"key,omitempty"`
	Line          int       `json:"line,omitempty"`
	PaymentID     string    `json:"payment_id,omitempty"`
	ReferenceID   string    `json:"reference_id,omitempty"`
	Amount        string    `json:"amount,omitempty"`
	Outcome       Outcome   `json:"outcome,omitempty"`
	HTTPStatus    int       `json:"http_status,omitempty"`
	ErrorType     string    `json:"error_type,omitempty"`
	Message       string    `json:"message,omitempty"`
	PaymentStatus string    `json:"payment_status,omitempty"`
	At            time.Time `json:"at"`
}

// journalEntry is what the journal knows of one row: its latest send and
// the result of that send, if any.
type journalEntry struct {
	send   *journalRecord
	result *journalRecord
}

// openJournal opens or creates the journal at path, cutting off a torn last
// line, and returns what it records by key.
func openJournal(path string, op Op, now func() time.Time) (*journal, map[string]*journalEntry, error) {
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, os.ErrNotExist)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	entries, err := loadJournal(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if created {
		syncDir(filepath.Dir(path))
	}
	j := &journal{f: f, path: path, now: now}
	if err := j.append(journalRecord{Event: eventRun, Op: op, Format: journalFormat}); err != nil {
		f.Close()
		return nil, nil, err
	}
	return j, entries, nil
}

func loadJournal(f *os.File, path string) (map[string]*journalEntry, error) {
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	if complete := bytes.LastIndexByte(data, '\n') + 1; complete < len(data) {
		if err := f.Truncate(int64(complete)); err != nil {
			return nil, fmt.Errorf("journal %s: cutting off a torn last line: %w", path, err)
		}
		data = data[:complete]
	}
	entries := map[string]*journalEntry{}
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec journalRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("journal %s: line %d is damaged (%v); it is not the last line, so it was not torn by a crash: repair or remove that line, keeping every \"send\" record", path, n+1, err)
		}
		if rec.Key == "" {
			continue
		}
		e := entries[rec.Key]
		if e == nil {
			e = &journalEntry{}
			entries[rec.Key] = e
		}
		switch rec.Event {
		case eventSend:
			r := rec
			e.send, e.result = &r, nil
		case eventResult:
			r := rec
			e.result = &r
		}
	}
	return entries, nil
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

// rowKeys gives every row its journal key; see the journal's documentation.
func rowKeys(op Op, rows []Row) []string {
	keys := make([]string, len(rows))
	seen := map[string]int{}
	for i, r := range rows {
		content := strings.Join([]string{
			string(op), r.PaymentID, canonicalAmount(r.Amount), r.ReferenceID,
			canonicalAmount(r.TaxAmount), canonicalAmount(r.ShippingAmount), canonicalAmount(r.DiscountAmount), r.Reason,
		}, "\x1f")
		seen[content]++
		sum := sha256.Sum256([]byte(content + "\x1f" + strconv.Itoa(seen[content])))
		keys[i] = hex.EncodeToString(sum[:16])
	}
	return keys
}

func canonicalAmount(s string) string {
	if d, err := decimal.NewFromString(s); err == nil {
		return d.String()
	}
	return s
}
