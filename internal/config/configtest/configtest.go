// Package configtest is what the tests of bnpl's configuration files
// share, config's own and bnpl doctor's: a file written with the mode
// the test asks for.
package configtest

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes content to path with exactly mode, making its
// directories (0700) first. WriteFile's mode is filtered by the umask;
// the tests of the permission checks want it exact.
func WriteFile(t testing.TB, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
