//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package cmdutil

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/bnpl-cli/bnpl/internal/output"
	"golang.org/x/sys/unix"
)

// interruptAt is the prompt's output. On the first write whose text
// contains at it sends the process an interrupt and waits until the run's
// handler has caught it, before the write returns: the Ctrl-C of a person
// who pressed it the moment the question showed, delivered before the
// prompt does anything more.
type interruptAt struct {
	at  string
	run context.Context

	mu   sync.Mutex
	text strings.Builder
	sent bool
}

func (w *interruptAt) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text.Write(b)
	if !w.sent && strings.Contains(w.text.String(), w.at) {
		w.sent = true
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			return 0, err
		}
		<-w.run.Done()
	}
	return len(b), nil
}

func (w *interruptAt) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

// runContext is what Execute gives the command tree: a context that the
// process's own Ctrl-C handler ends.
func runContext(t *testing.T) context.Context {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	t.Cleanup(stop)
	return ctx
}

// await is the result of a prompt, or a failure when it never ends: the
// bound guards against a hang, it is not a speed limit.
func await[T any](t *testing.T, done <-chan T) T {
	t.Helper()
	select {
	case v := <-done:
		return v
	case <-time.After(60 * time.Second):
		t.Fatal("the prompt still waits 60s after Ctrl-C")
		panic("unreachable")
	}
}

// Ctrl-C at the moment the question shows, caught by the run's handler
// before the prompt reads: every prompt ends with ErrInterrupted and only a
// newline after its question.
func TestPromptCtrlCAsTheQuestionShows(t *testing.T) {
	const q = "LIVE: capture 10.00 AED? Type yes to confirm: "
	asks := map[string]func(in io.Reader, out io.Writer, run context.Context) error{
		"Line": func(in io.Reader, out io.Writer, run context.Context) error {
			_, err := (&Prompter{In: in, Out: out, Interrupt: run}).Line(q)
			return err
		},
		"Secret": func(in io.Reader, out io.Writer, run context.Context) error {
			_, err := (&Prompter{In: in, Out: out, Interrupt: run}).Secret(q)
			return err
		},
		"YesNo": func(in io.Reader, out io.Writer, run context.Context) error {
			_, err := (&Prompter{In: in, Out: out, Interrupt: run}).YesNo(q)
			return err
		},
		"Prompter.Confirm": func(in io.Reader, out io.Writer, run context.Context) error {
			return (&Prompter{In: in, Out: out, Interrupt: run}).Confirm(q)
		},
		// A live move's confirmation, as Factory.Confirmer builds it:
		// without the command's context.
		"Confirmer.Confirm": func(in io.Reader, out io.Writer, run context.Context) error {
			c := Confirmer{Live: true, Terminal: true, In: in, Prompt: out, Interrupt: run}
			return c.Confirm("capture 10.00 AED")
		},
	}
	for name, ask := range asks {
		t.Run(name, func(t *testing.T) {
			run := runContext(t)
			in, keys := io.Pipe()
			defer keys.Close()
			out := &interruptAt{at: "Type yes to confirm: ", run: run}
			done := make(chan error, 1)
			go func() { done <- ask(in, out, run) }()
			err := await(t, done)
			if !errors.Is(err, ErrInterrupted) || ExitCode(err) != ExitInterrupted {
				t.Fatalf("err=%v exit=%d, want ErrInterrupted and 130", err, ExitCode(err))
			}
			if got := out.String(); !strings.HasSuffix(got, "Type yes to confirm: \n") {
				t.Errorf("after Ctrl-C the prompt printed %q, want its question and a newline", got)
			}
		})
	}
}

// A Ctrl-C the run's handler caught before the prompt began (while the
// command was still working) ends the prompt at once, nothing read.
func TestPromptAfterCtrlC(t *testing.T) {
	run := runContext(t)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-run.Done()
	ios, _, _, _ := output.Test()
	f := &Factory{IO: ios, Global: &GlobalOptions{}, Interrupt: run}
	in := strings.NewReader("yes\n")
	c := f.Confirmer(true)
	c.Terminal, c.In, c.Prompt = true, in, io.Discard
	if err := c.Confirm("capture 10.00 AED"); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err=%v, want ErrInterrupted", err)
	}
	if in.Len() != len("yes\n") {
		t.Errorf("the interrupted confirmation read the answer typed after it")
	}
}

func echoes(t *testing.T, tty *os.File) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatalf("read the terminal's mode: %v", err)
	}
	return tio.Lflag&unix.ECHO != 0
}

// A hidden read on a terminal: Ctrl-C as the question shows (before echo
// goes off) and Ctrl-C while it waits both leave the terminal echoing.
func TestSecretCtrlCRestoresEcho(t *testing.T) {
	for _, at := range []string{"key: ", ""} {
		t.Run("at "+strings.TrimSpace(at), func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal: %v", err)
			}
			defer ptmx.Close()
			defer tty.Close()
			run := runContext(t)
			var out io.Writer = io.Discard
			if at != "" {
				out = &interruptAt{at: at, run: run}
			}
			p := &Prompter{In: tty, Out: out, Interrupt: run}
			done := make(chan error, 1)
			go func() { _, err := p.Secret("key: "); done <- err }()
			if at == "" {
				// Ctrl-C once the read is hidden.
				for echoes(t, tty) {
					select {
					case err := <-done:
						t.Fatalf("the hidden read ended before Ctrl-C: %v", err)
					default:
						runtime.Gosched()
					}
				}
				if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
			}
			if err := await(t, done); !errors.Is(err, ErrInterrupted) {
				t.Fatalf("err=%v, want ErrInterrupted", err)
			}
			if !echoes(t, tty) {
				t.Errorf("Ctrl-C at the hidden read left the terminal without echo")
			}
		})
	}
}

// A hidden answer is read without echo, and echo comes back after it.
func TestSecretReadsHidden(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	var out strings.Builder
	p := &Prompter{In: tty, Out: &out}
	type result struct {
		line string
		err  error
	}
	done := make(chan result, 1)
	go func() { line, err := p.Secret("key: "); done <- result{line, err} }()
	for echoes(t, tty) {
		runtime.Gosched()
	}
	if _, err := ptmx.Write([]byte("sk_test_hidden\r")); err != nil {
		t.Fatal(err)
	}
	r := await(t, done)
	if r.err != nil || r.line != "sk_test_hidden" {
		t.Fatalf("Secret = %q, %v; want sk_test_hidden", r.line, r.err)
	}
	if !echoes(t, tty) {
		t.Errorf("the terminal does not echo after the hidden read")
	}
	if out.String() != "key: \n" {
		t.Errorf("Secret printed %q, want the label and a newline", out.String())
	}
}
