package script

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"

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
