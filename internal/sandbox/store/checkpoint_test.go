package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestCatchUpAfter(t *testing.T) {
	for _, c := range []struct {
		frames, copied int
		want           bool
	}{
		{0, 0, false},
		{restartFrames - 1, restartFrames - 1, false}, // short: let it grow
		{restartFrames, restartFrames, true},          // all copied: start over
		{restartFrames, restartFrames - tailFrames, true},
		{restartFrames, restartFrames - tailFrames - 1, false}, // the checkpointer copies on
		{maxFrames - 1, 0, false},
		{maxFrames, 0, true}, // too long: the writer copies it all
	} {
		if got := catchUpAfter(c.frames, c.copied); got != c.want {
			t.Errorf("catchUpAfter(%d, %d) = %v, want %v", c.frames, c.copied, got, c.want)
		}
	}
}

// Under a stream of commits the WAL still starts over: with SQLite's own
// checkpoints off on the writer's connection, the checkpointer and the
// writer's catch-up keep it near its threshold. The state file has 1 KiB
// pages so that the stream writes many frames quickly: without the
// checkpointer the WAL ends some 36,000 frames long, with SQLite's own
// checkpoints about 5,600.
func TestWALStartsOverUnderAStreamOfWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	pre, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=page_size(1024)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pre.Exec(`CREATE TABLE stream (b BLOB NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	pre.Close()
	st, err := OpenState(path, nil, 0, BuiltinMerchants(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	const writers, each = 8, 800
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := make([]byte, 3000) // four pages: a leaf's share and three overflow pages
			for range each {
				_, _ = rand.Read(b)
				if err := st.Write(context.Background(), func(ctx context.Context, tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, `INSERT INTO stream (b) VALUES (?)`, b)
					return err
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// A WAL that starts over is written again from its start: its file
	// keeps the longest it ever was.
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	const frame = 1024 + 24
	if longest := fi.Size() / frame; longest > 3*maxFrames {
		t.Errorf("the WAL grew to %d frames for %d writes, want at most %d", longest, writers*each, 3*maxFrames)
	}
}
