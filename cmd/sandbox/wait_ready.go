package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// maxReadyFile bounds the ready file read.
const maxReadyFile = 64 << 10

// waitReadyFile waits until serve's ready file exists and reads it whole:
// the sandbox serve started, or serve's error as an error with its own
// exit code and hint.
func waitReadyFile(ctx context.Context, path string, timeout time.Duration) (*ReadyFile, error) {
	if err := readyFileDir(path); err != nil {
		return nil, err
	}
	last := "not written yet"
	for {
		ready, reason, err := readReadyFile(path)
		if err != nil || ready != nil {
			return ready, err
		}
		last = reason
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, &waitRefused{msg: fmt.Sprintf("serve's ready file %s after %s: %s", path, timeout, last), code: cmdutil.ExitNetwork,
					hint: "start bnpl sandbox serve with --ready-file " + path + ", and look at its output for why it is not ready"}
			}
			return nil, ctx.Err()
		case <-time.After(waitPoll):
		}
	}
}

// readyFileDir fails at once when serve cannot write path: its directory
// does not exist, or this user may not write there (serve, run as the
// same user, fails on it before it can write even its error).
func readyFileDir(path string) error {
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return cmdutil.Refuse(readyFileHint, "--ready-file %s: the directory %s does not exist, so serve cannot write its ready file there", path, dir)
	case err != nil:
		return cmdutil.Refuse(readyFileHint, "--ready-file %s: %v", path, unwrapPath(err))
	case !info.IsDir():
		return cmdutil.Refuse(readyFileHint, "--ready-file %s: %s is not a directory", path, dir)
	case !mayWriteIn(dir):
		return cmdutil.Refuse(readyFileHint, "--ready-file %s: this user may not write in %s, so serve run as this user cannot write its ready file (nor its error) there", path, dir)
	}
	return nil
}

// readReadyFile reads the file once: the ready sandbox, else a reason to
// look again, or serve's failure.
func readReadyFile(path string) (*ReadyFile, string, error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "not written yet", nil
	case err != nil:
		return nil, "", fmt.Errorf("--ready-file: %w", err)
	case len(b) > maxReadyFile:
		return nil, "", cmdutil.Refuse("give the file serve --ready-file writes", "--ready-file %s is not serve's ready file: it is larger than %d KiB", path, maxReadyFile>>10)
	}
	var ready ReadyFile
	if err := json.Unmarshal(b, &ready); err != nil {
		return nil, "", cmdutil.Refuse("give the file serve --ready-file writes", "--ready-file %s is not serve's ready file: %v", path, err)
	}
	if ready.Error != "" {
		return nil, "", &waitRefused{msg: "bnpl sandbox serve failed: " + ready.Error, hint: ready.Hint, code: max(ready.ExitCode, cmdutil.ExitError)}
	}
	if ready.LocalURLs["ae"] == "" {
		return nil, "", cmdutil.Refuse("give the file serve --ready-file writes", "--ready-file %s names no address of the sandbox", path)
	}
	return &ready, "", nil
}

// readyWithHealth is what -o json prints with --ready-file: the file, with
// the health answer under "health".
func readyWithHealth(ready *ReadyFile, health json.RawMessage) (json.RawMessage, error) {
	b, err := json.Marshal(ready)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["health"] = health
	return json.Marshal(m)
}
