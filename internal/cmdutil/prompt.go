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

// Prompter asks a person at a terminal. Every read ends at once when the
// context is cancelled or the process gets an interrupt (Ctrl-C): the line
// is read in a goroutine that an interrupt abandons, so the next line
// typed is never taken as the answer. It is the one way bnpl prompts.
type Prompter struct {
	// In is where answers come from, Out where questions go (stderr).
	In  io.Reader
	Out io.Writer
	// Ctx, when set, cancels a waiting read too (the command's context).
	Ctx context.Context
}

// Prompter returns the prompter over the factory's streams.
func (f *Factory) Prompter(ctx context.Context) *Prompter {
	return &Prompter{In: f.IO.In, Out: f.IO.ErrOut, Ctx: ctx}
}

// Line asks label and returns the line typed, without its line ending.
// End of input returns io.EOF with what was typed before it.
func (p *Prompter) Line(label string) (string, error) {
	fmt.Fprint(p.Out, label)
	return p.read(func() (string, error) { return readLine(p.In) }, nil)
}

// Secret asks label and reads a line without echoing it when In is a
// terminal (keys); elsewhere it reads the line as Line does. The terminal
// is restored whether the read ends or is interrupted.
func (p *Prompter) Secret(label string) (string, error) {
	fmt.Fprint(p.Out, label)
	file, ok := p.In.(*os.File)
	if !ok || !term.IsTerminal(int(file.Fd())) {
		return p.read(func() (string, error) { return readLine(p.In) }, nil)
	}
	fd := int(file.Fd())
	state, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	line, err := p.read(func() (string, error) {
		b, err := term.ReadPassword(fd)
		return string(b), err
	}, func() { _ = term.Restore(fd, state) })
	if !errors.Is(err, ErrInterrupted) {
		// The typed newline was not echoed.
		fmt.Fprintln(p.Out)
	}
	return line, err
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

// read runs get in a goroutine and waits for it, the context or an
// interrupt, whichever comes first. On an interrupt it runs restore,
// ends the prompt's line and returns ErrInterrupted; the goroutine is left
// blocked on input that nobody will read.
func (p *Prompter) read(get func() (string, error), restore func()) (string, error) {
	ctx := p.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil {
		return "", p.interrupted(restore)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	done := make(chan readResult, 1)
	go func() {
		line, err := get()
		done <- readResult{line, err}
	}()
	select {
	case r := <-done:
		return r.line, r.err
	case <-ctx.Done():
		return "", p.interrupted(restore)
	}
}

func (p *Prompter) interrupted(restore func()) error {
	if restore != nil {
		restore()
	}
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
