package terminal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A bulk run on a terminal draws its bar in place: every frame fits the
// terminal less a column at 80 and at 50 columns (where its times give
// way), the last frame counts every row, and the screen after
// the run holds the summary with no frame left on it.
func TestBulkBarFitsTheTerminalOnPTY(t *testing.T) {
	env := ptyEnv(t)
	for _, cols := range []uint16{80, 50} {
		// Payments of its own for each run: the same moves again would
		// be reconciled, not sent.
		var rows strings.Builder
		rows.WriteString("payment_id,amount\n")
		for range 6 {
			id := authorizedPayment(t, env)
			fmt.Fprintf(&rows, "%s,1.00\n%s,1.00\n", id, id)
		}
		file := filepath.Join(t.TempDir(), "captures.csv")
		if err := os.WriteFile(file, []byte(rows.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		run := startPTYAt(t, env, cols, "payments", "capture", "--input", file, "--allow-repeats")
		if code := run.waitExit(30 * time.Second); code != 0 {
			t.Fatalf("%d columns: exit %d\n%s", cols, code, run.output())
		}
		out := run.output() // as written, frames and all
		// The frames are drawn in place: from the first to the summary
		// no line ends (a frame wider than the terminal would be wrapped).
		first, summary := strings.Index(out, "\rcapture "), strings.Index(out, "capture: 12 rows")
		if first < 0 || summary < first {
			t.Fatalf("%d columns: no frame before the summary:\n%q", cols, out)
		}
		if strings.Contains(out[first:summary], "\n") {
			t.Errorf("%d columns: the frames go over lines:\n%q", cols, out[first:summary])
		}
		last := ""
		for _, line := range strings.Split(out, "\n") {
			for _, frame := range strings.Split(line, "\r") {
				if !strings.Contains(frame, "capture ") || !strings.Contains(frame, "%") {
					continue
				}
				last = frame
				if n := utf8.RuneCountInString(strings.TrimRight(frame, " ")); n > int(cols)-1 {
					t.Errorf("%d columns: a frame of %d columns: %q", cols, n, frame)
				}
			}
		}
		if !strings.Contains(last, "100%") || !strings.Contains(last, "(12/12") {
			t.Errorf("%d columns: the last frame %q does not count the 12 rows\n%s", cols, last, out)
		}
		if cols == 80 && !strings.Contains(last, "% |") {
			t.Errorf("80 columns: no bar in %q", last)
		}
		shown := screen(out)
		if !strings.Contains(shown, "capture: 12 rows: 12 ok") || strings.Contains(shown, "100%") {
			t.Errorf("%d columns: the screen after the run:\n%s", cols, shown)
		}
	}
}
