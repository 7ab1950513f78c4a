package script

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the sandbox's own driver
)

// stateSQL is the program `statesql FILE STATEMENT` of the scripts: it runs
// one SQL statement on a sandbox state file, as a person with sqlite3 (or a
// faulty older sandbox) might, to damage the state on purpose. The sandbox
// the script started may be writing the file at that moment: like the
// sandbox, statesql waits for SQLite's lock (busy_timeout) rather than
// fail with SQLITE_BUSY.
func stateSQL() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: statesql FILE STATEMENT")
		os.Exit(2)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: os.Args[1]}).EscapedPath()+"?_pragma=busy_timeout(10000)")
	if err == nil {
		_, err = db.Exec(os.Args[2])
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// statesql waits for a lock the sandbox holds instead of failing with
// SQLITE_BUSY: while a transaction of this test holds the state's write
// lock, statesql must not end; once it is given back, its statement runs.
func TestStateSQLWaitsForTheSandboxsLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE meta (k TEXT PRIMARY KEY, v)"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("statesql", path, "INSERT INTO meta (k, v) VALUES ('clock_offset', 1)")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Hold the lock a while after statesql has the file open: a statesql
	// that did not wait would end within it, with SQLITE_BUSY.
	waitOpen(t, cmd.Process.Pid, path, exited)
	select {
	case err := <-exited:
		t.Fatalf("statesql ended while the lock was held (%v):\n%s", err, out.String())
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil {
		t.Fatalf("statesql: %v\n%s", err, out.String())
	}
	var v int
	if err := db.QueryRow("SELECT v FROM meta WHERE k = 'clock_offset'").Scan(&v); err != nil || v != 1 {
		t.Fatalf("the row statesql wrote: %d, %v", v, err)
	}
}

// waitOpen waits until process pid has the file at path open (Linux's
// /proc), or has ended.
func waitOpen(t *testing.T, pid int, path string, exited chan error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		links, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, l := range links {
			if target, err := os.Readlink(l); err == nil && target == path {
				return
			}
		}
		select {
		case err := <-exited:
			exited <- err
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Fatalf("statesql never opened %s", path)
}
