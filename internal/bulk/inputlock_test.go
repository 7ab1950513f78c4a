package bulk

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two runs of one input with two journals: the second stops before
// anything, naming the first; once the first is done the input is free.
func TestTheInputIsLockedWhateverTheJournal(t *testing.T) {
	dir := t.TempDir()
	rows := []Row{{Line: 2, PaymentID: pidA, Amount: "10"}}
	o := Options{Op: OpCapture, LockDir: filepath.Join(dir, "state"), InputID: "abc", InputName: "caps.csv",
		JournalPath: filepath.Join(dir, "one.journal")}
	first, err := Prepare(rows, o)
	if err != nil {
		t.Fatal(err)
	}
	o.JournalPath = filepath.Join(dir, "two.journal")
	_, err = Prepare(rows, o)
	var busy *InputBusyError
	if !errors.As(err, &busy) || busy.ExitCode() != 2 || busy.Holder == nil || busy.Holder.PID != os.Getpid() ||
		!strings.Contains(err.Error(), "journal "+filepath.Join(dir, "one.journal")) || !strings.Contains(busy.Hint(), "kill -TERM") {
		t.Fatalf("second run: %v", err)
	}
	// The second run left its journal unlocked and untouched.
	if _, err := os.Stat(o.JournalPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("second journal: %v", err)
	}
	// Another op, or other content, is another input.
	other := o
	other.Op = OpRefund
	if b, err := Prepare([]Row{{Line: 2, PaymentID: pidA, Amount: "10"}}, other); err != nil {
		t.Errorf("refund of the same file: %v", err)
	} else {
		b.Close()
	}
	first.Close()
	again, err := Prepare(rows, o)
	if err != nil {
		t.Fatalf("after the first ended: %v", err)
	}
	again.Close()
}
