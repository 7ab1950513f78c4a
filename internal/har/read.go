package har

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Bounds of what a reader takes from a recording: a recording may come
// from anywhere, and a small hostile file (a million empty entries) must
// not cost gigabytes.
const (
	// DefaultMaxEntries is how many entries verify and replay read unless
	// told otherwise (--max-entries).
	DefaultMaxEntries = 100_000
	// MaxRecordingBytes is the most of a recording read.
	MaxRecordingBytes = 1 << 30
)

// Limits bound a reading; zero values are the defaults.
type Limits struct {
	MaxEntries int
	MaxBytes   int64
}

func (l Limits) entries() int {
	if l.MaxEntries <= 0 {
		return DefaultMaxEntries
	}
	return l.MaxEntries
}

func (l Limits) bytes() int64 {
	if l.MaxBytes <= 0 {
		return MaxRecordingBytes
	}
	return l.MaxBytes
}

// LimitError is a recording past a bound of the reading.
type LimitError struct {
	Path  string
	What  string // "entries" or "bytes"
	Limit int64
	Flag  string // the flag that raises it, "" when none does
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s holds more than %d %s, the most read", e.Path, e.Limit, e.What)
}

// Hint says how to go on.
func (e *LimitError) Hint() string {
	if e.Flag != "" {
		return fmt.Sprintf("raise the bound with %s N if the recording is meant to be that large", e.Flag)
	}
	return "split the recording, or record a shorter run"
}

// ExitCode is a usage error's: nothing was replayed.
func (e *LimitError) ExitCode() int { return 2 }

var errTooLarge = errors.New("recording too large")

// capped reads at most max bytes, then fails.
type capped struct {
	r      io.Reader
	n, max int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.n > c.max {
		return 0, errTooLarge
	}
	if rest := c.max - c.n + 1; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		// The byte past the bound is withheld: the document is refused,
		// not read as if it ended there.
		return 0, errTooLarge
	}
	return n, err
}

// Scan reads a HAR document from r one entry at a time, calling fn with
// each entry and its position in the file (from 1); only one entry is
// held at a time. It answers the log without its entries. Any valid HAR
// 1.2 is read (pages, other tools' fields); past lim, a *LimitError.
func Scan(name string, r io.Reader, lim Limits, fn func(n int, e *Entry) error) (*Log, error) {
	cr := &capped{r: r, max: lim.bytes()}
	dec := json.NewDecoder(cr)
	notHAR := func(err error) error {
		if errors.Is(err, errTooLarge) {
			return &LimitError{Path: name, What: "bytes", Limit: lim.bytes()}
		}
		var le *LimitError
		if errors.As(err, &le) {
			return err
		}
		return &NotRecordingError{Path: name, Why: fmt.Sprintf("it is not a HAR file (%v)", err), Reading: true}
	}
	var log Log
	found := false
	err := object(dec, func(key string) error {
		if key != "log" {
			return skip(dec)
		}
		found = true
		return object(dec, func(key string) error {
			switch key {
			case "version":
				return dec.Decode(&log.Version)
			case "creator":
				return dec.Decode(&log.Creator)
			case "_bnpl":
				return dec.Decode(&log.Bnpl)
			case "entries":
				return entries(dec, name, lim, fn)
			}
			return skip(dec)
		})
	})
	if err != nil {
		return nil, notHAR(err)
	}
	if !found || log.Version == "" {
		return nil, &NotRecordingError{Path: name, Why: `it has no "log" with a version`, Reading: true}
	}
	return &log, nil
}

func entries(dec *json.Decoder, name string, lim Limits, fn func(int, *Entry) error) error {
	if err := delim(dec, '['); err != nil {
		return err
	}
	n := 0
	for dec.More() {
		n++
		if n > lim.entries() {
			return &LimitError{Path: name, What: "entries", Limit: int64(lim.entries()), Flag: "--max-entries"}
		}
		var e Entry
		if err := dec.Decode(&e); err != nil {
			return fmt.Errorf("entry %d: %w", n, err)
		}
		if err := fn(n, &e); err != nil {
			return err
		}
	}
	return delim(dec, ']')
}

// object walks a JSON object, calling member with each key; member must
// read the value.
func object(dec *json.Decoder, member func(key string) error) error {
	if err := delim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := member(key); err != nil {
			return err
		}
	}
	return delim(dec, '}')
}

func delim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, tok)
	}
	return nil
}

// skip reads past one value without keeping it.
func skip(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// Parse reads a whole HAR document. Entries are put in the order their
// requests started (ties keep the file's order, which is the order they
// ended), so a request is never put before one that had ended when it
// began.
func Parse(name string, data []byte) (*File, error) {
	var doc File
	log, err := Scan(name, bytes.NewReader(data), Limits{MaxEntries: 1 << 30}, func(_ int, e *Entry) error {
		doc.Log.Entries = append(doc.Log.Entries, *e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	entries := doc.Log.Entries
	doc.Log = *log
	doc.Log.Entries = entries
	sort.SliceStable(doc.Log.Entries, func(i, j int) bool {
		return doc.Log.Entries[i].Started().Before(doc.Log.Entries[j].Started())
	})
	return &doc, nil
}
