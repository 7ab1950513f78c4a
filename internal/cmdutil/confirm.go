package cmdutil

import (
	"context"
	"io"
)

// Confirmer decides whether a live money move may go ahead.
type Confirmer struct {
	Live     bool // the move would use a live key
	Yes      bool // --yes
	Terminal bool // stdin and stderr are terminals, so a person can answer
	In       io.Reader
	Prompt   io.Writer
	// Ctx, when set, cancels the question too; Ctrl-C always does.
	Ctx context.Context
	// Interrupt is the run's context, which Ctrl-C ends (Factory.Interrupt).
	Interrupt context.Context
}

// Confirm asks before a live move. Test mode and --yes go ahead; without a
// terminal there is nobody to ask, so the move is refused rather than made.
// An answer other than yes returns ErrNotConfirmed (exit 2); Ctrl-C
// at the question returns ErrInterrupted (exit 130).
func (c Confirmer) Confirm(what string) error {
	if !c.Live || c.Yes {
		return nil
	}
	if !c.Terminal {
		return Refuse("pass --yes to confirm live money moves in scripts",
			"refusing to %s in live mode without confirmation", what)
	}
	p := &Prompter{In: c.In, Out: c.Prompt, Ctx: c.Ctx, Interrupt: c.Interrupt}
	return p.Confirm("LIVE: " + what + "? Type yes to confirm: ")
}

// Confirmer for this invocation, from the target and the terminal.
func (f *Factory) Confirmer(live bool) Confirmer {
	return Confirmer{
		Live:      live,
		Yes:       f.Global.Yes,
		Terminal:  f.IO.IsStdinTTY() && f.IO.IsStderrTTY(),
		In:        f.IO.In,
		Prompt:    f.IO.ErrOut,
		Interrupt: f.Interrupt,
	}
}
