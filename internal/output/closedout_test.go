package output

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
)

type brokenPipe struct{ writes int }

func (b *brokenPipe) Write(p []byte) (int, error) {
	b.writes++
	return 0, fmt.Errorf("write |1: %w", syscall.EPIPE)
}

// The first broken-pipe write marks stdout gone and calls the hook once;
// later writes fail at once without reaching the pipe.
func TestClosedOutWriter(t *testing.T) {
	pipe := &brokenPipe{}
	ios := &IOStreams{}
	w := &closedOutWriter{w: pipe}
	ios.watchedOut, ios.Out = w, w
	calls := 0
	ios.OnStdoutClosed(func() { calls++ })
	if ios.StdoutClosed() {
		t.Fatal("closed before any write")
	}
	for range 3 {
		if _, err := io.WriteString(ios.Out, "row\n"); !errors.Is(err, ErrStdoutClosed) {
			t.Fatalf("write: %v, want ErrStdoutClosed", err)
		}
	}
	if !ios.StdoutClosed() || calls != 1 || pipe.writes != 1 {
		t.Errorf("closed %v, hook called %d times, pipe written %d times; want true, 1, 1", ios.StdoutClosed(), calls, pipe.writes)
	}
	// Streams over buffers never report a closed stdout.
	test, _, _, _ := Test()
	if test.StdoutClosed() {
		t.Error("test streams closed")
	}
}
