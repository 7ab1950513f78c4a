package payments

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// maxBufferedInput bounds what is kept of a bulk input read from stdin or
// a pipe: about 20 million rows.
const maxBufferedInput = 1 << 30

// bulkInput is the input of a bulk run, readable more than once: a
// regular file as it is, or what stdin or a pipe gave, copied first into
// a private file of bnpl's state directory. The lock's content hash, the
// plan and the run then read the same bytes, and a large input need not
// be held in memory to be read twice.
type bulkInput struct {
	name     string // as given to --input
	path     string // the file read: the input itself, or its copy
	buffered bool   // path is a copy, removed by close
}

// openBulkInput opens --input name (stdin for "-"), buffering a stream
// of at most limit bytes under stateDir (the system's temporary directory
// when "").
func openBulkInput(name string, stdin io.Reader, stateDir string, limit int64) (*bulkInput, error) {
	f, err := userfile.Open("--input", name, stdin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Size >= 0 {
		return &bulkInput{name: name, path: name}, nil
	}
	dir := os.TempDir()
	if stateDir != "" {
		dir = filepath.Join(stateDir, "bulk-input")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("buffering --input %s: %w", name, err)
		}
	}
	tmp, err := os.CreateTemp(dir, "input-*.tmp") // mode 600
	if err != nil {
		return nil, fmt.Errorf("buffering --input %s: %w", name, err)
	}
	in := &bulkInput{name: name, path: tmp.Name(), buffered: true}
	n, err := io.Copy(tmp, io.LimitReader(f, limit+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		in.close()
		return nil, fmt.Errorf("buffering --input %s in %s: %w", name, dir, err)
	case n > limit:
		in.close()
		return nil, cmdutil.UsageHint("save the rows to a file and give its path to --input",
			"--input %s: more than %s read; a stream is kept in the state directory to be read twice, up to that size", name, sizeText(limit))
	}
	return in, nil
}

// open opens the input for one pass.
func (in *bulkInput) open() (io.ReadCloser, error) {
	if in.buffered {
		return os.Open(in.path)
	}
	return userfile.OpenRegular("--input", in.path)
}

// close removes a buffered copy.
func (in *bulkInput) close() {
	if in.buffered {
		_ = os.Remove(in.path)
	}
}

// scan reads the input once, handing each valid row to each, and returns
// the invalid rows and the hex SHA-256 of the bytes read.
func (in *bulkInput) scan(op bulk.Op, ro bulk.ReadOptions, each func(bulk.Row)) ([]bulk.RowError, string, error) {
	r, err := in.open()
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	hash := sha256.New()
	invalid, err := bulk.ScanRows(io.TeeReader(r, hash), in.name, op, ro, each)
	if err != nil {
		return nil, "", err
	}
	return invalid, hex.EncodeToString(hash.Sum(nil)), nil
}

// changedError is an input whose bytes changed between two passes.
func changedError(name string) error {
	return cmdutil.Refuse("let whatever writes the file finish, then run again",
		"%s changed while it was read (its content is not the same on the second pass); nothing was sent", name)
}

// changedWhileRunError is an input whose bytes changed while a run sent
// its rows: what was sent was checked row by row before each move and is
// in the ledger and the report, but the rows read may not be the file's.
func changedWhileRunError(name string) error {
	return cmdutil.Refuse("let whatever writes the file finish, then run it again: rows already made are not sent again",
		"%s changed while its rows were sent (its content is not the same as when the run started); the run stopped", name)
}

// sizeText writes a byte count in the largest whole unit.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
