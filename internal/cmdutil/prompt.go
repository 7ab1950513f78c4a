package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"golang.org/x/term"
)

// ErrInterrupted is what a prompt returns when the person pressed Ctrl-C
// (or the command's context ended) while it waited for an answer. The prompt
// has already ended its line; the command exits 130 and prints nothing
// more, and sends nothing.
var ErrInterrupted error = &Silent{Code: ExitInterrupted}

// Prompter asks a person at a terminal. Every question ends at once when
// the person presses Ctrl-C, whenever it comes: the prompt watches for the
// interrupt before it shows the question, and also watches Interrupt, the
// run's context that Execute's own handler ends, so a Ctrl-C that handler
// caught a moment earlier is not lost. The line is read in a goroutine that
// an interrupt abandons, so the next line typed is never taken as the
// answer. It is the one way bnpl prompts.
type Prompter struct {
	// In is where answers come from, Out where questions go (stderr).
	In  io.Reader
	Out io.Writer
	// Ctx, when set, cancels a waiting read too (the command's context).
	Ctx context.Context
	// Interrupt, when set, is the run's context, which Ctrl-C ends
	// (Factory.Interrupt).
	Interrupt context.Context
}

// Prompter returns the prompter over the factory's streams, ended by ctx,
// by the run's interrupt and by Ctrl-C.
func (f *Factory) Prompter(ctx context.Context) *Prompter {
	return &Prompter{In: f.IO.In, Out: f.IO.ErrOut, Ctx: ctx, Interrupt: f.Interrupt}
}

// Line asks label and returns the line typed, without its line ending.
// End of input returns io.EOF with what was typed before it.
func (p *Prompter) Line(label string) (string, error) {
	return p.ask(label, false)
}

// Secret asks label and reads a line without echoing it when In is a
// terminal (keys); elsewhere it reads the line as Line does. Echo is turned
// off before the read starts and turned back on by the same goroutine
// whether the read ends or is interrupted, so an interrupt at any moment
// leaves the terminal echoing.
func (p *Prompter) Secret(label string) (string, error) {
	return p.ask(label, true)
}

// YesNo asks question and reports whether the answer was the word yes (any
// case, spaces around it ignored), as the questions say: "Type yes to
// confirm". Anything else, y, an empty line or the end of input is a no.
func (p *Prompter) YesNo(question string) (bool, error) {
	line, err := p.Line(question)
	if errors.Is(err, ErrInterrupted) {
		return false, err
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "yes", nil
}

// ErrNotConfirmed is a declined confirmation: exit 2, nothing sent.
var ErrNotConfirmed error = &LocalError{Msg: "not confirmed: nothing was sent"}

// Confirm asks question and returns nil for yes, ErrNotConfirmed
// (exit 2) for any other answer or the end of input, and ErrInterrupted
// (exit 130) for Ctrl-C. The caller decides whether to ask at all (a
// terminal, --yes).
func (p *Prompter) Confirm(question string) error {
	yes, err := p.YesNo(question)
	switch {
	case err != nil:
		return err
	case !yes:
		return ErrNotConfirmed
	}
	return nil
}

type readResult struct {
	line string
	err  error
}

// ask shows label and reads the answer, hidden when asked and In is a
// terminal. The order matters: the interrupt is watched before the label
// is written (a Ctrl-C pressed as soon as the question shows reaches this
// prompt, not only the run's handler); the run's context and the command's
// are checked before anything is read; echo goes off here, not in the
// reading goroutine, so that the restore below cannot run before it.
func (p *Prompter) ask(label string, hidden bool) (string, error) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	ctx := p.Ctx
	if ctx == nil {
		ctx = context.Background()
	}

	fmt.Fprint(p.Out, label)
	if p.ended(ctx, sigs) {
		return "", p.interrupted()
	}
	get := func() (string, error) { return readLine(p.In) }
	restore := func() {}
	if hidden {
		if file, ok := p.In.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
			var err error
			if get, restore, err = hiddenRead(file); err != nil {
				return "", err
			}
		} else {
			hidden = false
		}
	}
	if p.ended(ctx, sigs) {
		restore()
		return "", p.interrupted()
	}
	done := make(chan readResult, 1)
	go func() {
		line, err := get()
		done <- readResult{line, err}
	}()
	select {
	case r := <-done:
		restore()
		if hidden {
			// The typed newline was not echoed.
			fmt.Fprintln(p.Out)
		}
		return r.line, r.err
	case <-ctx.Done():
	case <-p.interrupt():
	case <-sigs:
	}
	// The goroutine is left blocked on input that nobody will read.
	restore()
	return "", p.interrupted()
}

// interrupt is ended by the run's interrupt; nil (never ready) without one.
func (p *Prompter) interrupt() <-chan struct{} {
	if p.Interrupt == nil {
		return nil
	}
	return p.Interrupt.Done()
}

// ended reports, without waiting, whether the prompt's context or the
// run's has ended or an interrupt has come.
func (p *Prompter) ended(ctx context.Context, sigs <-chan os.Signal) bool {
	select {
	case <-ctx.Done():
		return true
	case <-p.interrupt():
		return true
	case <-sigs:
		return true
	default:
		return false
	}
}

// hiddenRead turns the terminal's echo off and returns the read of one line
// and the restore of the terminal. Where bnpl cannot turn echo off by
// itself, term.ReadPassword does both in the read.
func hiddenRead(file *os.File) (get func() (string, error), restore func(), err error) {
	fd := int(file.Fd())
	on, err := echoOff(fd)
	if err == nil {
		return func() (string, error) { return readLine(file) }, on, nil
	}
	if !errors.Is(err, errors.ErrUnsupported) {
		return nil, nil, err
	}
	state, err := term.GetState(fd)
	if err != nil {
		return nil, nil, err
	}
	return func() (string, error) {
			b, err := term.ReadPassword(fd)
			return string(b), err
		}, func() {
			_ = term.Restore(fd, state)
		}, nil
}

func (p *Prompter) interrupted() error {
	fmt.Fprintln(p.Out)
	return ErrInterrupted
}

// readLine reads up to a newline one byte at a time, so that nothing after
// the line is consumed: the next prompt, or a key piped after the answers,
// still finds it.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return strings.TrimSuffix(b.String(), "\r"), nil
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			if err == io.EOF && b.Len() > 0 {
				return b.String(), nil
			}
			return b.String(), err
		}
	}
}
