package bulk

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/bnpl-cli/bnpl/internal/output"
)

// The input lock keeps two runs of one file from working at once, whatever
// their journals: two people each giving the file a journal of their own
// would otherwise both send its rows. The rows keep the service from moving
// the money twice (their reference_ids are the same), but both runs would
// report it as theirs. The lock is on the input's identity, the hash of
// its content and the op, as a file under bnpl's state directory, so that
// a copy of the file under another name is the same input.

// inputHolder is what the lock file says of the run that holds it.
type inputHolder struct {
	PID     int       `json:"pid"`
	Op      Op        `json:"op"`
	Input   string    `json:"input"`
	Journal string    `json:"journal,omitempty"`
	At      time.Time `json:"at"`
}

// inputLockPath is the lock file of an input and op under dir.
func inputLockPath(dir string, op Op, identity string) string {
	sum := sha256.Sum256([]byte(string(op) + "\x00" + identity))
	return filepath.Join(dir, "bulk-locks", hex.EncodeToString(sum[:16])+".lock")
}

// lockInput takes the input lock for the run, or returns an
// *InputBusyError naming the run that holds it. The lock lasts until the
// returned file is closed or the process ends.
func lockInput(dir string, op Op, identity, input, journalPath string, now time.Time) (*os.File, error) {
	path := inputLockPath(dir, op, identity)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("input lock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("input lock: %w", err)
	}
	busy, err := lockFile(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("input lock %s: %w", path, err)
	}
	if busy {
		var h *inputHolder
		if b, err := io.ReadAll(io.LimitReader(f, 64<<10)); err == nil {
			var rec inputHolder
			if json.Unmarshal(b, &rec) == nil && rec.PID > 0 {
				h = &rec
			}
		}
		f.Close()
		return nil, &InputBusyError{Input: input, Op: op, Holder: h}
	}
	rec, _ := json.Marshal(inputHolder{PID: os.Getpid(), Op: op, Input: input, Journal: journalPath, At: now.UTC()})
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(append(rec, '\n'), 0)
	}
	return f, nil
}

// InputBusyError is an input another run of the same op is working on,
// whatever its journal. Nothing was sent.
type InputBusyError struct {
	Input  string
	Op     Op
	Holder *inputHolder
}

func (e *InputBusyError) Error() string {
	who := "another bnpl run"
	if h := e.Holder; h != nil {
		who = fmt.Sprintf("another bnpl run (process %d, %s of %s since %s", h.PID, h.Op, h.Input, output.FormatTime(h.At, output.TimeUTC, time.Time{}))
		if h.Journal != "" {
			who += ", journal " + h.Journal
		}
		who += ")"
	}
	return fmt.Sprintf("%s: the same rows are being run by %s; nothing was sent", e.Input, who)
}

func (e *InputBusyError) ExitCode() int { return 2 }

func (e *InputBusyError) Hint() string {
	stop := "stop it"
	if e.Holder != nil {
		stop = fmt.Sprintf("stop it (kill -TERM %d lets it finish the rows in flight)", e.Holder.PID)
	}
	return "one run per file at a time, whatever the journal: wait for that run to end, or " + stop +
		", then run again with its journal to resume it"
}
