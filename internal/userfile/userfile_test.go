package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadRegularAndStdin(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "body.json")
	if err := os.WriteFile(p, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := Read("--file", p, nil, MaxRequestBody)
	if err != nil || string(b) != `{"a":1}` {
		t.Fatalf("Read = %q, %v", b, err)
	}
	b, err = Read("--file", Stdin, strings.NewReader("from stdin"), MaxRequestBody)
	if err != nil || string(b) != "from stdin" {
		t.Fatalf("stdin = %q, %v", b, err)
	}
}

func TestReadRefusesOversize(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big")
	if err := os.WriteFile(p, make([]byte, 101), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Read("--input", p, nil, 100)
	assertRefused(t, err, "is 101 bytes; at most 100 bytes (100 bytes) is read")
	_, err = Read("--input", Stdin, strings.NewReader(strings.Repeat("x", 101)), 100)
	assertRefused(t, err, "--input stdin: holds more than 100 bytes")
	_, err = Read("--input", Stdin, strings.NewReader(strings.Repeat("x", MaxRequestBody+1)), MaxRequestBody)
	assertRefused(t, err, "the service accepts a request body of at most 1 MiB (1048576 bytes)")
	if b, err := Read("--input", Stdin, strings.NewReader(strings.Repeat("x", 100)), 100); err != nil || len(b) != 100 {
		t.Fatalf("exactly the limit: %d, %v", len(b), err)
	}
}

func assertRefused(t *testing.T, err error, want string) {
	t.Helper()
	var ue *Error
	if !errors.As(err, &ue) || ue.ExitCode() != 2 {
		t.Fatalf("want a userfile.Error exiting 2, got %v", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{312: "312 bytes", 1 << 20: "1 MiB", 3 << 19: "1.5 MiB", 2048: "2 KiB", 1500: "1.5 KiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
