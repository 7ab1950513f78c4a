package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"io"
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
		{"terminal YES", Confirmer{Live: true, Terminal: true}, " YES \n", true},
		// The question says "Type yes": y is not yes.
		{"terminal y", Confirmer{Live: true, Terminal: true}, "y\n", false},
		{"terminal yes!", Confirmer{Live: true, Terminal: true}, "yes please\n", false},
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
		if c.c.Live && !c.c.Yes && c.c.Terminal && (!strings.Contains(prompt.String(), "capture 10.00 AED") || !strings.Contains(prompt.String(), "Type yes to confirm")) {
			t.Errorf("%s: prompt does not name the move: %q", c.name, prompt.String())
		}
	}
}

func TestConfirmDeclinedSaysNothingWasSent(t *testing.T) {
	for _, answer := range []string{"n\n", "\n", "nope\n", ""} {
		c := Confirmer{Live: true, Terminal: true, In: strings.NewReader(answer), Prompt: &bytes.Buffer{}}
		err := c.Confirm("capture 10.00 AED")
		if err == nil || err.Error() != "not confirmed: nothing was sent" {
			t.Fatalf("answer %q: err=%v", answer, err)
		}
		var h interface{ Hint() string }
		if errors.As(err, &h) && strings.Contains(h.Hint(), "--yes") {
			t.Errorf("answer %q: the hint suggests --yes: %q", answer, h.Hint())
		}
	}
}

func TestPromptInterruptedByContext(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	p := &Prompter{In: r, Out: &out, Ctx: ctx}
	done := make(chan error, 1)
	go func() { done <- p.Confirm("LIVE: capture? ") }()
	cancel()
	err := <-done
	if !errors.Is(err, ErrInterrupted) || ExitCode(err) != ExitInterrupted {
		t.Fatalf("err=%v exit=%d, want ErrInterrupted and 130", err, ExitCode(err))
	}
	if out.String() != "LIVE: capture? \n" {
		t.Errorf("the prompt printed %q after the interrupt, want only a newline", out.String())
	}
}

func TestPromptLinesLeaveTheRestUnread(t *testing.T) {
	in := strings.NewReader("desk\r\nae\nsk_test_rest")
	p := &Prompter{In: in, Out: io.Discard}
	for _, want := range []string{"desk", "ae"} {
		got, err := p.Line("? ")
		if err != nil || got != want {
			t.Fatalf("Line = %q, %v; want %q", got, err, want)
		}
	}
	got, err := p.Secret("key: ")
	if err != nil || got != "sk_test_rest" {
		t.Fatalf("Secret off a terminal = %q, %v", got, err)
	}
	if _, err := p.Line("? "); !errors.Is(err, io.EOF) {
		t.Fatalf("Line at the end of input: %v, want io.EOF", err)
	}
}
