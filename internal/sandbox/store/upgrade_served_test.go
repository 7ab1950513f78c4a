package store_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	_ "github.com/bnpl-cli/bnpl/internal/sandbox/outbox" // registers its guard of the upgrade
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// announce writes, as a serving sandbox does, the lease of a server of
// pid on this machine at url.
func announce(t *testing.T, path string, pid int, url string) {
	t.Helper()
	host, _ := os.Hostname()
	v, _ := json.Marshal(map[string]any{"pid": pid, "host": host, "owner": "older", "url": url, "until": time.Now().Add(time.Hour)})
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT OR REPLACE INTO settings (k, v) VALUES ('server', ?)`, string(v)); err != nil {
		t.Fatal(err)
	}
}

// The outbox's guard: a file an older sandbox serves (its lease live, its
// process running) is left as it is, exit code 12 and the sandbox to stop
// named; once that process is gone, the file is upgraded.
func TestAnOlderServingSandboxHoldsOffTheUpgrade(t *testing.T) {
	path := store.OlderStateFile(t, store.LayoutBreaks-1)
	announce(t, path, os.Getpid(), "http://127.0.0.1:4010")
	_, err := store.OpenState(path, nil, 0, store.BuiltinMerchants(), 1)
	var se *store.StateError
	if !errors.As(err, &se) || se.ExitCode() != 12 || !strings.Contains(err.Error(), "served by an older bnpl sandbox at http://127.0.0.1:4010") {
		t.Fatalf("opening a file an older sandbox serves: %v", err)
	}

	ended := exec.Command(os.Args[0], "-test.run=^$")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	announce(t, path, ended.Process.Pid, "http://127.0.0.1:4010")
	st, err := store.OpenState(path, nil, 0, store.BuiltinMerchants(), 1)
	if err != nil {
		t.Fatalf("the serving process is gone, yet: %v", err)
	}
	st.Close()
}
