package cmdutil

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Confirmer decides whether a live money move may go ahead.
type Confirmer struct {
	Live     bool // the move would use a live key
	Yes      bool // --yes
	Terminal bool // stdin and stderr are terminals, so a person can answer
	In       io.Reader
	Prompt   io.Writer
}

// Confirm asks before a live move. Test mode and --yes go ahead; without a
// terminal there is nobody to ask, so the move is refused rather than made.
func (c Confirmer) Confirm(what string) error {
	if !c.Live || c.Yes {
		return nil
	}
	if !c.Terminal {
		return Refuse("pass --yes to confirm live money moves in scripts",
			"refusing to %s in live mode without confirmation", what)
	}
	fmt.Fprintf(c.Prompt, "LIVE: %s? Type yes to confirm: ", what)
	line, err := bufio.NewReader(c.In).ReadString('\n')
	if err != nil && line == "" {
		return Refuse("answer yes at the prompt, or pass --yes", "not confirmed: %s", what)
	}
	if a := strings.ToLower(strings.TrimSpace(line)); a != "yes" && a != "y" {
		return Refuse("answer yes at the prompt, or pass --yes", "not confirmed: %s", what)
	}
	return nil
}

// Confirmer for this invocation, from the target and the terminal.
func (f *Factory) Confirmer(live bool) Confirmer {
	return Confirmer{
		Live:     live,
		Yes:      f.Global.Yes,
		Terminal: f.IO.IsStdinTTY() && f.IO.IsStderrTTY(),
		In:       f.IO.In,
		Prompt:   f.IO.ErrOut,
	}
}
