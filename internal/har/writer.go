package har

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// The file is written so that it is a whole HAR document after every
// entry, whoever stops when: the head, the entries separated by ",\n",
// and the tail. An entry is written over the old tail with a new tail
// after it, under the file's lock, so a recorder and a listen adding
// notifications can share one file.
var (
	entriesOpen = []byte(`"entries":[`)
	tail        = []byte("\n]}}\n")
)

// DefaultMaxFile bounds a recording's file unless told otherwise.
const DefaultMaxFile = 256 << 20

// ErrFull is returned by Append once the file has reached its bound: the
// entry is not written (the exchange itself went through).
var ErrFull = errors.New("the recording reached its size bound")

// Writer adds entries to a HAR file. It is safe for concurrent use, and
// several processes may write one file.
type Writer struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	max     int64
	meta    LogMeta
	written int
	dropped int
}

// NotRecordingError is a file that exists and is not a HAR file bnpl
// writes to.
type NotRecordingError struct {
	Path, Why string
	// Reading is set when the file was to be read (verify, replay), not
	// added to.
	Reading bool
}

func (e *NotRecordingError) Error() string {
	if e.Reading {
		return fmt.Sprintf("%s is not a recording: %s", e.Path, e.Why)
	}
	return fmt.Sprintf("%s is not a recording bnpl can add to: %s", e.Path, e.Why)
}

// Hint says what to do.
func (e *NotRecordingError) Hint() string {
	if e.Reading {
		return "name a HAR file, such as one bnpl sandbox record wrote"
	}
	return "name a new file, or a .har file that bnpl sandbox record or bnpl listen --record wrote"
}

// ExitCode is a usage error's: nothing was recorded.
func (e *NotRecordingError) ExitCode() int { return 2 }

// OpenWriter opens path for recording: a new file (mode 0600; an existing
// one is made 0600, a symbolic link refused) gets a head
// with meta; an existing recording is added to, and keeps its own meta
// (Meta answers it). maxFile bounds the file (0: DefaultMaxFile).
func OpenWriter(path string, meta LogMeta, version string, maxFile int64) (*Writer, error) {
	if maxFile <= 0 {
		maxFile = DefaultMaxFile
	}
	// A recording holds what the app sent: it is kept 0600, also when
	// the file existed with a wider mode, and a link at its path is not
	// followed.
	f, err := userfile.OpenPrivate(path, os.O_RDWR|os.O_CREATE)
	if fe := (*userfile.FileError)(nil); errors.As(err, &fe) {
		return nil, &NotRecordingError{Path: path, Why: strings.TrimPrefix(fe.Problem, "is ")}
	}
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, path: path, max: maxFile, meta: meta}
	if err := w.start(version); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// locked runs fn under the file's lock, with the file as it is then.
func (w *Writer) locked(fn func(st os.FileInfo) error) error {
	if err := lock(w.f); err != nil {
		return err
	}
	defer unlock(w.f)
	st, err := w.f.Stat()
	if err != nil {
		return err
	}
	return fn(st)
}

func (w *Writer) start(version string) error {
	return w.locked(func(st os.FileInfo) error { return w.begin(st, version) })
}

// begin checks that the file w opened is a recording bnpl writes, or
// makes it one when it is empty.
func (w *Writer) begin(st os.FileInfo, version string) error {
	if !st.Mode().IsRegular() {
		return &NotRecordingError{Path: w.path, Why: "it is not a regular file"}
	}
	if st.Size() == 0 {
		return w.writeHead(version)
	}
	head := make([]byte, min(st.Size(), 64<<10))
	if _, err := w.f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	i := bytes.Index(head, entriesOpen)
	var doc File
	if i < 0 || json.Unmarshal(append(append([]byte{}, head[:i+len(entriesOpen)]...), "]}}"...), &doc) != nil ||
		doc.Log.Creator.Name != "bnpl" || doc.Log.Version != Version {
		return &NotRecordingError{Path: w.path, Why: "it does not start as a HAR file bnpl wrote"}
	}
	if err := w.checkTail(st.Size()); err != nil {
		return err
	}
	var have LogMeta
	if doc.Log.Bnpl != nil {
		have = *doc.Log.Bnpl
	}
	if have == (LogMeta{}) && w.meta != (LogMeta{}) && st.Size() == int64(i+len(entriesOpen)+len(tail)) {
		// An empty recording made by a listen started first: the
		// recorder's meta (region, target, redaction) is the file's.
		if err := w.f.Truncate(0); err != nil {
			return err
		}
		return w.writeHead(version)
	}
	w.meta = have
	return nil
}

func (w *Writer) writeHead(version string) error {
	log := struct {
		Version string   `json:"version"`
		Creator Creator  `json:"creator"`
		Bnpl    *LogMeta `json:"_bnpl,omitempty"`
	}{Version, Creator{Name: "bnpl", Version: version}, &w.meta}
	b, err := marshal(log)
	if err != nil {
		return err
	}
	var doc bytes.Buffer
	doc.WriteString(`{"log":`)
	doc.Write(b[:len(b)-1]) // without its closing brace
	doc.WriteString(",")
	doc.Write(entriesOpen)
	doc.Write(tail)
	_, err = w.f.WriteAt(doc.Bytes(), 0)
	return err
}

func (w *Writer) checkTail(size int64) error {
	if size < int64(len(tail)) {
		return &NotRecordingError{Path: w.path, Why: "it is too short to be one"}
	}
	end := make([]byte, len(tail))
	if _, err := w.f.ReadAt(end, size-int64(len(tail))); err != nil {
		return err
	}
	if !bytes.Equal(end, tail) {
		return &NotRecordingError{Path: w.path, Why: "it does not end as bnpl ends a recording (was it edited?)"}
	}
	return nil
}

// Meta is the recording's meta: the file's own when it existed.
func (w *Writer) Meta() LogMeta { return w.meta }

// Path is the file written.
func (w *Writer) Path() string { return w.path }

// Append adds an entry at the end of the file, under the file's lock.
func (w *Writer) Append(e Entry) error {
	b, err := marshal(e)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.locked(func(st os.FileInfo) error { return w.appendAt(st, b) })
}

// appendAt writes the entry b at the end of the file st, whose lock w
// holds.
func (w *Writer) appendAt(st os.FileInfo, b []byte) error {
	if err := w.checkTail(st.Size()); err != nil {
		return err
	}
	if st.Size()+int64(len(b))+2 > w.max {
		w.dropped++
		return ErrFull
	}
	at := st.Size() - int64(len(tail))
	prev := make([]byte, 1)
	if _, err := w.f.ReadAt(prev, at-1); err != nil {
		return err
	}
	var out bytes.Buffer
	if prev[0] != '[' {
		out.WriteString(",")
	}
	out.WriteString("\n")
	out.Write(b)
	out.Write(tail)
	if _, err := w.f.WriteAt(out.Bytes(), at); err != nil {
		return err
	}
	w.written++
	return nil
}

// Written and Dropped count this writer's entries: written, and left out
// because the file reached its bound.
func (w *Writer) Written() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written
}

// Dropped counts the entries left out at the bound.
func (w *Writer) Dropped() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// marshal is compact JSON without HTML escapes, without the encoder's
// final newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
