// Command writefloor is a floor for bench/ratios.sh's sandbox writes: a
// plain net/http server that keeps the body of every POST it is sent in a
// SQLite file as the sandbox keeps its state (the same driver, WAL,
// synchronous=NORMAL, one writer goroutine committing the requests that
// wait in one transaction) and answers each with its body only after its
// commit. It does nothing else: no routing, no decoding, no rules, no
// request log. What a durable write costs on a machine, beyond HTTP,
// shows against it.
//
// Usage: writefloor -addr 127.0.0.1:PORT -state FILE
package main

import (
	"context"
	"database/sql"
	"flag"
	"io"
	"log"
	"net/http"
	"net/url"
	"strconv"
	"time"

	_ "modernc.org/sqlite"
)

type job struct {
	body []byte
	done chan error
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	state := flag.String("state", "", "SQLite file to keep the writes in")
	flag.Parse()
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: *state}).EscapedPath()+
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)")
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS writes (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, body BLOB NOT NULL)`); err != nil {
		log.Fatal(err)
	}
	insert, err := db.Prepare(`INSERT INTO writes (at, body) VALUES (?, ?)`)
	if err != nil {
		log.Fatal(err)
	}
	jobs := make(chan job, 1024)
	go writer(db, insert, jobs)
	srv := &http.Server{
		Addr:              *addr,
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			j := job{body: body, done: make(chan error, 1)}
			jobs <- j
			if err := <-j.done; err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			h := w.Header()
			h.Set("Content-Type", "application/json; charset=utf-8")
			h.Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body)
		}),
	}
	log.Fatal(srv.ListenAndServe())
}

// writer commits the jobs waiting, up to 64 at a time, in one
// transaction, and answers each once it has committed.
func writer(db *sql.DB, insert *sql.Stmt, jobs chan job) {
	group := make([]job, 0, 64)
	for j := range jobs {
		group = append(group[:0], j)
	more:
		for len(group) < cap(group) {
			select {
			case j := <-jobs:
				group = append(group, j)
			default:
				break more
			}
		}
		err := commit(context.Background(), db, insert, group)
		for _, j := range group {
			j.done <- err
		}
	}
}

func commit(ctx context.Context, db *sql.DB, insert *sql.Stmt, group []job) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt := tx.StmtContext(ctx, insert)
	now := time.Now().UnixNano()
	for _, j := range group {
		if _, err := stmt.ExecContext(ctx, now, j.body); err != nil {
			return err
		}
	}
	return tx.Commit()
}
