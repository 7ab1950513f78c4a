package payments

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// A stream (stdin, a pipe) is copied into the state directory before the
// plan, so that the lock's hash, the plan and the run read the same bytes;
// the copy is private, bounded, and removed at the end.
func TestBulkInputFromAStreamIsBufferedInTheStateDirectory(t *testing.T) {
	state := t.TempDir()
	rows := "op,payment_id,amount\ncapture," + movedPaymentID + ",1.00\nclose," + movedPaymentID + ",\n"
	pr, pw := io.Pipe()
	go func() {
		_, _ = io.WriteString(pw, rows)
		pw.Close()
	}()
	in, err := openBulkInput("-", pr, state, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !in.buffered || filepath.Dir(in.path) != filepath.Join(state, "bulk-input") {
		t.Fatalf("not buffered in the state directory: %+v", in)
	}
	if st, err := os.Stat(in.path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("copy %v %v", st, err)
	}
	var ops [2][]bulk.Op
	var ids [2]string
	for pass := range 2 {
		invalid, id, err := in.scan(bulk.OpApply, bulk.ReadOptions{}, func(r bulk.Row) { ops[pass] = append(ops[pass], r.Op) })
		if err != nil || len(invalid) != 0 {
			t.Fatalf("pass %d: %v %v", pass, invalid, err)
		}
		ids[pass] = id
	}
	if ids[0] != ids[1] || len(ops[1]) != 2 || ops[1][1] != bulk.OpClose {
		t.Fatalf("the two passes differ: %v %v", ids, ops)
	}
	in.close()
	if _, err := os.Stat(in.path); !os.IsNotExist(err) {
		t.Fatalf("copy left behind: %v", err)
	}

	// Past the bound: refused (exit 2), nothing left behind.
	_, err = openBulkInput("-", strings.NewReader(rows), state, 16)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "more than 16 bytes read") {
		t.Fatalf("over the bound: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(state, "bulk-input")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}

	// A regular file is read where it is.
	file := filepath.Join(t.TempDir(), "moves.csv")
	if err := os.WriteFile(file, []byte(rows), 0o600); err != nil {
		t.Fatal(err)
	}
	if in, err := openBulkInput(file, nil, state, 16); err != nil || in.buffered || in.path != file {
		t.Fatalf("regular file: %+v %v", in, err)
	}
}
