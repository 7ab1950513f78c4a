package output

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// IOStreams is the one place that knows where data, notices and input go,
// and what those places are: terminals or not, how wide, whether colour is
// wanted. Commands read it instead of asking os.Stdout themselves, so tests
// can pretend to be a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY  bool
	stdoutTTY bool
	stderrTTY bool
	// stdoutPipe: stdout is a pipe or a socket, whose reader may well
	// print on the terminal stderr draws on.
	stdoutPipe bool

	// width is resolved on first use: most commands never print a table, and
	// an ioctl per run is cheap but not free.
	width      int
	widthKnown bool
	widthFunc  func() int

	outColor bool
	errColor bool

	timeStyle TimeStyle
	now       func() time.Time

	plainProgress bool
	// report is where errors go once ScriptErrors has silenced ErrOut:
	// the stderr a script reads, one JSON object per error.
	report io.Writer
	// pagerCmd is the pager long output on a terminal goes through ("":
	// none), from pagerFunc on first use; pager is the one running.
	pagerCmd  string
	pagerFunc func() string
	pager     *pager
	// paging: the pager's process runs (from the first write after
	// StartPager); read by IsPaging from any goroutine.
	paging atomic.Bool

	// rawOut is the process's stdout itself (a pager writes to it), and
	// watchedOut the writer over it that notices its reader going away.
	rawOut     io.Writer
	watchedOut io.Writer
	// rawErr is the process's stderr itself, under the writer that wraps
	// its lines (a pager is handed it); errWidthFunc measures it.
	rawErr       io.Writer
	errWidthFunc func() int
}

// ScriptErrors turns stderr into the script contract of -o json: from
// now on ErrOut drops everything (notices, hints, progress), and
// PrintError and PrintWarning write one JSON object per line to the
// stderr that was.
func (s *IOStreams) ScriptErrors() {
	if s.report != nil {
		return
	}
	s.report = s.ErrOut
	s.ErrOut = io.Discard
}

// ChildOut is the stdout to hand a command bnpl runs (sandbox record --
// CMD): the process's own, so that a command on a terminal knows it is on
// one and fits its output to it, rather than a pipe through the writer
// that watches stdout; Out when that is not the process's stdout.
func (s *IOStreams) ChildOut() io.Writer {
	if f, ok := s.rawOut.(*os.File); ok && s.Out == s.watchedOut {
		return f
	}
	return s.Out
}

// ChildErr is the stderr to hand a command bnpl runs, as ChildOut is its
// stdout: the terminal itself rather than the writer that wraps lines for
// it; ErrOut when that is not the process's stderr (ScriptErrors).
func (s *IOStreams) ChildErr() io.Writer {
	if f, ok := s.rawErr.(*os.File); ok && s.report == nil {
		return f
	}
	return s.ErrOut
}

// ScriptErrorsOn reports whether ScriptErrors is in force.
func (s *IOStreams) ScriptErrorsOn() bool { return s.report != nil }

// System returns streams bound to the process's stdin, stdout and stderr.
func System() *IOStreams {
	s := systemWith(os.Getenv, os.Stdin, os.Stdout, os.Stderr, term.IsTerminal, term.GetSize)
	// Read when a pager is wanted: most commands never page.
	s.pagerFunc = func() string { return pagerFrom(os.LookupEnv, exec.LookPath) }
	s.rawOut = s.Out
	s.watchedOut = &closedOutWriter{w: s.Out}
	s.Out = s.watchedOut
	if s.stderrTTY {
		// Every line to a terminal's stderr is wrapped between words at
		// its width: notices, errors, hints, questions.
		s.rawErr = s.ErrOut
		s.ErrOut = &wrappedWriter{w: s.ErrOut, width: s.ErrWidth}
	}
	return s
}

// systemWith is System with its environment and terminal probes injected, so
// the colour rules can be tested without a terminal.
func systemWith(
	getenv func(string) string,
	stdin, stdout, stderr *os.File,
	isTerminal func(fd int) bool,
	getSize func(fd int) (width, height int, err error),
) *IOStreams {
	s := &IOStreams{
		In:        stdin,
		Out:       stdout,
		ErrOut:    stderr,
		stdinTTY:  stdin != nil && isTerminal(int(stdin.Fd())),
		stdoutTTY: stdout != nil && isTerminal(int(stdout.Fd())),
		stderrTTY: stderr != nil && isTerminal(int(stderr.Fd())),
	}
	if stdout != nil && !s.stdoutTTY {
		if fi, err := stdout.Stat(); err == nil {
			s.stdoutPipe = fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
		}
	}
	s.outColor = colorWanted(getenv, s.stdoutTTY)
	s.errColor = colorWanted(getenv, s.stderrTTY)
	s.widthFunc = func() int {
		if s.stdoutTTY && stdout != nil {
			if w, _, err := getSize(int(stdout.Fd())); err == nil && w > 0 {
				return w
			}
		}
		return widthFromEnv(getenv)
	}
	s.errWidthFunc = func() int {
		if s.stderrTTY && stderr != nil {
			if w, _, err := getSize(int(stderr.Fd())); err == nil && w > 0 {
				return w
			}
		}
		return 0
	}
	return s
}

// colorWanted applies the common conventions: CLICOLOR_FORCE (set and not
// "0") wins, as it exists to colour output that goes to a pager or a CI log;
// otherwise colour needs a terminal, an empty NO_COLOR and CLICOLOR not "0".
func colorWanted(getenv func(string) string, tty bool) bool {
	if f := getenv("CLICOLOR_FORCE"); f != "" && f != "0" {
		return true
	}
	if !tty {
		return false
	}
	if getenv("NO_COLOR") != "" {
		return false
	}
	return getenv("CLICOLOR") != "0"
}

const defaultWidth = 80

func widthFromEnv(getenv func(string) string) int {
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return defaultWidth
}

// Test returns streams over buffers. None is a terminal, colour is off and
// the width is 80 until a test says otherwise.
func Test() (ios *IOStreams, in *bytes.Buffer, out *bytes.Buffer, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	ios = &IOStreams{In: in, Out: out, ErrOut: errOut, width: defaultWidth, widthKnown: true}
	return ios, in, out, errOut
}

func (s *IOStreams) IsStdinTTY() bool  { return s.stdinTTY }
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// IsStdoutPipe reports whether stdout is a pipe or a socket: its reader
// (`| cat`, `| head`) may print on the terminal that stderr draws a
// progress line on.
func (s *IOStreams) IsStdoutPipe() bool { return s.stdoutPipe }

// SetStdoutPipe says stdout is a pipe (for tests).
func (s *IOStreams) SetStdoutPipe(pipe bool) { s.stdoutPipe = pipe }

func (s *IOStreams) SetStdinTTY(tty bool)  { s.stdinTTY = tty }
func (s *IOStreams) SetStdoutTTY(tty bool) { s.stdoutTTY = tty }
func (s *IOStreams) SetStderrTTY(tty bool) { s.stderrTTY = tty }

// PlainProgress reports whether progress must be written as plain lines,
// never redrawn in place with carriage returns (in a CI job, whose log
// keeps every byte, even when a runner gives it a terminal).
func (s *IOStreams) PlainProgress() bool { return s.plainProgress }

func (s *IOStreams) SetPlainProgress(plain bool) { s.plainProgress = plain }

// TerminalWidth is the width tables are fitted to: the terminal's when stdout
// is one, else $COLUMNS, else 80.
func (s *IOStreams) TerminalWidth() int {
	if !s.widthKnown {
		s.width = defaultWidth
		if s.widthFunc != nil {
			s.width = s.widthFunc()
		}
		s.widthKnown = true
	}
	return s.width
}

// ErrWidth is the width of stderr when it is a terminal (its lines are
// wrapped to it), else 0: nothing is wrapped for a log or a pipe.
func (s *IOStreams) ErrWidth() int {
	if s.errWidthFunc != nil {
		return s.errWidthFunc()
	}
	if s.stderrTTY {
		return s.TerminalWidth()
	}
	return 0
}

func (s *IOStreams) SetTerminalWidth(width int) {
	s.width = width
	s.widthKnown = true
}

// ColorEnabled reports whether output on stdout may be coloured.
func (s *IOStreams) ColorEnabled() bool { return s.outColor }

// ErrColorEnabled reports whether output on stderr may be coloured; it is
// decided apart from stdout because `bnpl ... | jq` still has a terminal for
// its errors.
func (s *IOStreams) ErrColorEnabled() bool { return s.errColor }

// SetColorEnabled turns colour on or off for both stdout and stderr.
func (s *IOStreams) SetColorEnabled(enabled bool) {
	s.outColor = enabled
	s.errColor = enabled
}

// DisableColor is what --no-color does; it beats every environment variable.
func (s *IOStreams) DisableColor() { s.SetColorEnabled(false) }

// Colors styles text for stdout.
func (s *IOStreams) Colors() *ColorScheme { return &ColorScheme{enabled: s.outColor} }

// ErrColors styles text for stderr.
func (s *IOStreams) ErrColors() *ColorScheme { return &ColorScheme{enabled: s.errColor} }

// ColorScheme wraps text in ANSI styles, or returns it unchanged when colour
// is off, so callers never branch on colour themselves.
type ColorScheme struct {
	enabled bool
}

func (c *ColorScheme) Enabled() bool { return c.enabled }

func (c *ColorScheme) Bold(s string) string   { return c.wrap("1", s) }
func (c *ColorScheme) Red(s string) string    { return c.wrap("31", s) }
func (c *ColorScheme) Green(s string) string  { return c.wrap("32", s) }
func (c *ColorScheme) Yellow(s string) string { return c.wrap("33", s) }
func (c *ColorScheme) Gray(s string) string   { return c.wrap("90", s) }

// Status colours a payment's or a dispute's status by what it asks of a
// merchant: yellow while it waits for the merchant or is still open, green
// when it settled in the merchant's favour, red when it failed or money went
// back, gray when it ended without money moving.
func (c *ColorScheme) Status(status string) string {
	switch strings.ToLower(strings.TrimSpace(status)) {
	case "authorized", "evidence_merchant", "new", "in_progress", "evidence_customer":
		return c.Yellow(status)
	case "closed", "captured", "approved", "declined", "cancelled":
		return c.Green(status)
	case "rejected", "refunded":
		return c.Red(status)
	case "created", "expired":
		return c.Gray(status)
	}
	return status
}

// DaysLeft colours the days a merchant has left to answer a dispute: red
// at 0 to 2, yellow up to 5.
func (c *ColorScheme) DaysLeft(value string) string {
	n, err := strconv.Atoi(strings.TrimSpace(value))
	switch {
	case err != nil:
		return value
	case n <= 2:
		return c.Red(value)
	case n <= 5:
		return c.Yellow(value)
	}
	return value
}

func (c *ColorScheme) wrap(code, s string) string {
	if !c.enabled || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
