package sandbox

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bnpl-cli/bnpl/internal/buildinfo"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// ReadyFile is what serve --ready-file writes once the sandbox accepts
// requests, and what `sandbox wait --ready-file` reads: which run it is,
// and where it answers. A serve that fails before that writes Error,
// Hint and ExitCode instead, so that the wait fails at once with its
// words rather than find another sandbox on the port.
type ReadyFile struct {
	Instance string `json:"instance,omitempty"`
	PID      int    `json:"pid"`
	Version  string `json:"version,omitempty"`
	// State is "memory" or "file", as /_sandbox/health says it;
	// StatePath the file.
	State     string `json:"state,omitempty"`
	StatePath string `json:"state_path,omitempty"`
	// URLs are what clients should use per region; LocalURLs reach the
	// listeners from this machine; Addrs are the addresses bound.
	URLs      map[string]string `json:"urls,omitempty"`
	LocalURLs map[string]string `json:"local_urls,omitempty"`
	Addrs     map[string]string `json:"addrs,omitempty"`

	Error    string `json:"error,omitempty"`
	Hint     string `json:"hint,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
}

// readyFile keeps serve's ready file: a leftover of an earlier run is
// removed at once; the file is written when the sandbox is ready,
// replaced by the error if serve fails, and removed when it stops.
type readyFile struct {
	path    string
	content ReadyFile
}

// startReadyFile checks that the file can be written where it is named,
// before serve says anything: a ready file that cannot be written fails
// serve at once (exit 2), not once the sandbox says it is running.
func startReadyFile(path string) (*readyFile, error) {
	r := &readyFile{path: path, content: ReadyFile{PID: os.Getpid()}}
	if path == "" {
		return r, nil
	}
	_ = os.Remove(path)
	probe, err := os.CreateTemp(filepath.Dir(path), ".bnpl-ready-*")
	if err != nil {
		r.path = ""
		return r, cmdutil.Refuse(readyFileHint, "--ready-file %s: cannot write in %s: %v", path, filepath.Dir(path), unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return r, nil
}

// readyFileHint is what to do about a ready file that cannot be written.
const readyFileHint = "name a file in a directory that exists and this user may write: $RUNNER_TEMP on GitHub, ${TMPDIR:-/tmp} elsewhere"

// unwrapPath is an error without the path os names in it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// describe notes what the run serves, before it is ready.
func (r *readyFile) describe(so sandbox.ServeOptions) {
	version, _, _ := buildinfo.Info()
	r.content.Instance, r.content.Version = so.Instance, version
	r.content.State, r.content.StatePath = "memory", so.StatePath
	if so.StatePath != "" {
		r.content.State = "file"
	}
}

// write is serve's Ready: the sandbox answers at where.
func (r *readyFile) write(where sandbox.Listening) error {
	if r.path == "" {
		return nil
	}
	r.content.URLs, r.content.LocalURLs, r.content.Addrs = where.URLs, where.LocalURLs, where.Addrs
	if err := r.store(r.content); err != nil {
		return cmdutil.Refuse(readyFileHint, "--ready-file: %v", err)
	}
	return nil
}

// finish ends the file with serve: removed after a clean stop, the error
// otherwise. It answers serve's error unchanged.
func (r *readyFile) finish(err error) error {
	if r.path == "" {
		return err
	}
	if err == nil {
		if rmErr := os.Remove(r.path); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
			return rmErr
		}
		return nil
	}
	failed := ReadyFile{PID: r.content.PID, Instance: r.content.Instance, Error: err.Error(), ExitCode: cmdutil.ExitCode(err)}
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		failed.Hint = h.Hint()
	}
	_ = r.store(failed)
	return err
}

// store writes the file whole or not at all: a reader never sees half.
func (r *readyFile) store(content ReadyFile) error {
	b, err := json.MarshalIndent(content, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(r.path), ".bnpl-ready-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), r.path)
}
