package sandbox

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestStateFailingUnderARequest: a state file that fails while a command
// runs (here its header is overwritten under the open sandbox) reaches the
// in-process client as a *StateError naming the file (exit code 12 and
// its hint), not as a 500 to retry.
func TestStateFailingUnderARequest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	sb, err := New(Options{StatePath: path, NoRequestLog: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	client := &http.Client{Transport: sb.Transport("ae")}
	list := func() (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodGet, "http://sandbox.invalid/api/v2/payments?limit=1", nil)
		req.Header.Set("Authorization", "Bearer sk_test_ae_sandbox")
		return client.Do(req)
	}
	res, err := list()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the list before the damage: %v %v", res, err)
	}
	res.Body.Close()

	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xa5}, 1<<16), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, side := range []string{"-wal", "-shm"} {
		if err := os.WriteFile(path+side, bytes.Repeat([]byte{0xa5}, 1<<16), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	res, err = list()
	if err == nil {
		res.Body.Close()
		t.Fatalf("a damaged state answered %d, want a state error", res.StatusCode)
	}
	var se *StateError
	if !errors.As(err, &se) || se.Path != path || se.ExitCode() != 12 {
		t.Fatalf("err = %v (%T), want a *StateError of %s", err, err, path)
	}
}
