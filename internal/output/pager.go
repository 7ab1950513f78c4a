package output

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// pagerFrom is the pager a person asked for, as gh chooses it: BNPL_PAGER,
// else PAGER, else "less -FRX" when less is installed and TERM names a
// terminal that is not dumb. Either variable set to "" or "cat" turns
// paging off.
func pagerFrom(lookupEnv func(string) (string, bool), lookPath func(string) (string, error)) string {
	for _, name := range []string{"BNPL_PAGER", "PAGER"} {
		if v, ok := lookupEnv(name); ok {
			if v = strings.TrimSpace(v); v == "cat" {
				return ""
			}
			return v
		}
	}
	// less on a dumb terminal (or none named) asks for RETURN first.
	if t, _ := lookupEnv("TERM"); t == "" || t == "dumb" {
		return ""
	}
	if _, err := lookPath("less"); err == nil {
		return "less -FRX"
	}
	return ""
}

// SetPager sets the pager command ("" for none); the streams of System
// take it from the environment.
func (s *IOStreams) SetPager(cmd string) { s.pagerCmd, s.pagerFunc = cmd, nil }

// IsPaging tells whether stdout is going through a pager now: one has
// started, at the first write after StartPager. Safe for concurrent use (a
// progress line asks it from the goroutines of a walk).
func (s *IOStreams) IsPaging() bool { return s.paging.Load() }

// StartPager sends stdout through the pager, when stdout is a terminal and
// a pager is set; it is never started for piped output, nor in a CI job
// (PlainProgress) without a terminal on stdin. The pager itself
// starts at the first write to stdout: until then the terminal is the
// command's, so a search shows its progress and Ctrl-C ends it at once,
// and a command that prints nothing never starts one. The pager gets the
// terminal's stdout and stderr; less is told -FRX through LESS (when LESS
// is unset) so that output shorter than a screen is printed as is and
// colours pass. StopPager ends it. A pager that cannot be found is an
// error: output then goes to the terminal directly; one that cannot start
// says so on stderr and does the same.
func (s *IOStreams) StartPager() error {
	// In a CI job a pager would wait for keys nobody types, unless a
	// person is at the terminal.
	if s.pager != nil || !s.stdoutTTY || s.plainProgress && !s.stdinTTY {
		return nil
	}
	if s.pagerFunc != nil {
		s.pagerCmd, s.pagerFunc = s.pagerFunc(), nil
	}
	if s.pagerCmd == "" {
		return nil
	}
	args := strings.Fields(s.pagerCmd)
	path, err := exec.LookPath(args[0])
	if err != nil {
		return fmt.Errorf("pager %q: %w", s.pagerCmd, err)
	}
	cmd := exec.Command(path, args[1:]...)
	// The pager writes to the terminal itself, not through a writer of
	// ours (which would hand it a pipe).
	out := s.Out
	if s.rawOut != nil && s.Out == s.watchedOut {
		out = s.rawOut
	}
	errOut := s.ErrOut
	if s.rawErr != nil {
		errOut = s.rawErr
	}
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if _, ok := os.LookupEnv("LV"); !ok {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	s.pager = &pager{cmd: cmd, name: s.pagerCmd, out: s.Out, errOut: s.ErrOut, paging: &s.paging}
	s.Out = s.pager
	// A notice after paged output is written below it once the pager
	// has ended, not over the screen it is showing.
	s.ErrOut = &afterPager{w: s.ErrOut, p: s.pager}
	return nil
}

// StopPager closes the pager's input and waits for the person to leave
// it; stdout is the terminal again.
func (s *IOStreams) StopPager() {
	if s.pager == nil {
		return
	}
	p := s.pager
	s.pager = nil
	s.Out = p.out
	if a, ok := s.ErrOut.(*afterPager); ok && a.p == p {
		s.ErrOut = a.w
	}
	p.stop()
}

// afterPager is stderr while a pager may run: a write ends the pager
// first (its input closed, the person done with it), so that what stderr
// says comes after the output, below it.
type afterPager struct {
	w io.Writer
	p *pager
}

func (a *afterPager) Write(b []byte) (int, error) {
	if a.p.paging.Load() {
		a.p.stop()
	}
	return a.w.Write(b)
}

// pager is stdout from StartPager to StopPager: its first write starts
// the pager's process, and every write goes to it (or, when it could not
// start, to the terminal).
type pager struct {
	cmd    *exec.Cmd
	name   string
	out    io.Writer // the terminal
	errOut io.Writer
	paging *atomic.Bool

	mu      sync.Mutex
	started bool
	failed  bool
	// done: the pager ended; what is written after goes to the terminal.
	done bool
	in   io.WriteCloser
	w    *pagerWriter
}

func (p *pager) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started && !p.failed && !p.done {
		p.start()
	}
	if p.failed || p.done {
		return p.out.Write(b)
	}
	return p.w.Write(b)
}

// start starts the pager's process; called with mu held.
func (p *pager) start() {
	in, err := p.cmd.StdinPipe()
	if err == nil {
		err = p.cmd.Start()
	}
	if err != nil {
		p.failed = true
		fmt.Fprintf(p.errOut, "warning: pager %q: %v; printing without it\n", p.name, err)
		return
	}
	p.started, p.in, p.w = true, in, &pagerWriter{w: in}
	p.paging.Store(true)
}

// stop closes the pager's input, if it started, and waits for it; what
// is written after goes to the terminal.
func (p *pager) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	if !p.started {
		return
	}
	_ = p.in.Close()
	_ = p.cmd.Wait()
	p.started = false
	p.paging.Store(false)
}

// pagerWriter drops what is written once the person has left the pager
// (a broken pipe): the command ends as if it had printed everything.
type pagerWriter struct {
	w    io.Writer
	gone bool
}

func (p *pagerWriter) Write(b []byte) (int, error) {
	if p.gone {
		return len(b), nil
	}
	n, err := p.w.Write(b)
	if err != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)) {
		p.gone = true
		return len(b), nil
	}
	return n, err
}
