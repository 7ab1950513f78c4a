//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestSaveRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		setup func(path string) error
		want  string
	}{
		"link to /dev/null": {func(p string) error { return os.Symlink(os.DevNull, p) }, "which is a device"},
		"link to a FIFO":    {func(p string) error { return os.Symlink(fifo, p) }, "which is a named pipe"},
		"dangling link":     {func(p string) error { return os.Symlink(filepath.Join(dir, "missing"), p) }, "which does not exist"},
		"a directory":       {func(p string) error { return os.Mkdir(p, 0o700) }, "is a directory"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := tc.setup(path); err != nil {
				t.Fatal(err)
			}
			c := &Config{path: path}
			if err := c.SetProfile(Profile{Name: "p", Region: "ae", MerchantCode: "m", TestSecretKey: profTestKey}); err != nil {
				t.Fatal(err)
			}
			err := c.Save()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Save: %v, want %q", err, tc.want)
			}
			assertUsageError(t, err)
			if info, _ := os.Stat(os.DevNull); info.Mode().IsRegular() {
				t.Fatal("/dev/null was replaced")
			}
		})
	}
	// Load refuses what Save refuses, before reading: /dev/zero would
	// never end.
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "which is a device") {
		t.Errorf("Load of a link to /dev/zero: %v", err)
	}
}
