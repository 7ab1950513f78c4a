package cmdutil

import (
	"bytes"
	"strings"
	"testing"
)

func TestConfirm(t *testing.T) {
	cases := []struct {
		name  string
		c     Confirmer
		input string
		ok    bool
	}{
		{"test mode never asks", Confirmer{Live: false}, "", true},
		{"--yes skips", Confirmer{Live: true, Yes: true}, "", true},
		{"no terminal refuses", Confirmer{Live: true}, "yes\n", false},
		{"terminal yes", Confirmer{Live: true, Terminal: true}, "yes\n", true},
		{"terminal y", Confirmer{Live: true, Terminal: true}, "Y\n", true},
		{"terminal no", Confirmer{Live: true, Terminal: true}, "no\n", false},
		{"terminal eof", Confirmer{Live: true, Terminal: true}, "", false},
	}
	for _, c := range cases {
		var prompt bytes.Buffer
		c.c.In = strings.NewReader(c.input)
		c.c.Prompt = &prompt
		err := c.c.Confirm("capture 10.00 AED")
		if (err == nil) != c.ok {
			t.Errorf("%s: err=%v", c.name, err)
		}
		if err != nil && ExitCode(err) != ExitUsage {
			t.Errorf("%s: exit %d, want 2", c.name, ExitCode(err))
		}
		if c.c.Live && !c.c.Yes && c.c.Terminal && !strings.Contains(prompt.String(), "capture 10.00 AED") {
			t.Errorf("%s: prompt does not name the move: %q", c.name, prompt.String())
		}
	}
}
