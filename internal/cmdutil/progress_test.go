package cmdutil

import (
	"testing"

	"github.com/bnpl-cli/bnpl/internal/output"
)

// Once data went to a pipe, whose reader may print on the same terminal,
// the progress line is taken away for good; to a file or a terminal it
// comes back after the data.
func TestProgressStopsAtDataToAPipe(t *testing.T) {
	for _, pipe := range []bool{true, false} {
		ios, _, _, errOut := output.Test()
		ios.SetStderrTTY(true)
		ios.SetStdoutPipe(pipe)
		p := NewProgress(ios, false)
		p.Show("page %d of %d", 1, 3)
		p.BeforeData()
		if got := errOut.String(); got != "\r\x1b[Kpage 1 of 3\r\x1b[K" {
			t.Fatalf("pipe %v: the line was not taken away: %q", pipe, got)
		}
		errOut.Reset()
		p.Show("page %d of %d", 2, 3)
		p.Clear()
		switch got := errOut.String(); {
		case pipe && got != "":
			t.Errorf("drawn again after data went to a pipe: %q", got)
		case !pipe && got != "\r\x1b[Kpage 2 of 3\r\x1b[K":
			t.Errorf("not drawn again with stdout a file: %q", got)
		}
	}
}
