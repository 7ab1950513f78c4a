package cmdutil

import (
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/output"
)

func TestInCI(t *testing.T) {
	for v, want := range map[string]bool{"": false, "true": true, "1": true, "yes": true, "gitlab": true, "0": false, "false": false, "no": false, " ": false} {
		if got := InCI(func(string) string { return v }); got != want {
			t.Errorf("CI=%q: InCI %v, want %v", v, got, want)
		}
	}
}

func TestTruthy(t *testing.T) {
	for v, want := range map[string]bool{"1": true, "true": true, "YES": true, "": false, "0": false, "on": false} {
		if Truthy(v) != want {
			t.Errorf("Truthy(%q) != %v", v, want)
		}
	}
}

// With plain progress (a CI job), the counter writes its state as a line,
// without carriage returns or escapes, terminal or not (the first at once,
// the next ones on the ticks of TestPlainProgressTicks); quiet wins.
func TestProgressPlainLines(t *testing.T) {
	ios, _, _, errOut := output.Test()
	ios.SetStderrTTY(true)
	ios.SetPlainProgress(true)
	p := NewProgress(ios, false)
	p.Show("page %d of %d", 1, 3)
	p.Show("page %d of %d", 1, 3)
	p.Clear()
	p.Show("page %d of %d", 2, 3)
	p.Done()
	if got := errOut.String(); got != "page 1 of 3\n" {
		t.Fatalf("plain progress wrote %q", got)
	}

	ios2, _, _, errOut2 := output.Test()
	ios2.SetPlainProgress(true)
	NewProgress(ios2, true).Show("page 1")
	if errOut2.Len() != 0 {
		t.Fatalf("quiet plain progress wrote %q", errOut2)
	}

	ios3, _, _, errOut3 := output.Test()
	ios3.SetStderrTTY(true)
	NewProgress(ios3, false).Show("page 1")
	if !strings.HasPrefix(errOut3.String(), "\r") {
		t.Fatalf("terminal progress wrote %q, want a redraw", errOut3)
	}
}
