package output

import (
	"errors"
	"os"
	"testing"
)

func fakeEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// fakeTerminal says which of fds 0, 1 and 2 are terminals.
func fakeTerminal(in, out, errOut bool) func(int) bool {
	return func(fd int) bool {
		switch fd {
		case int(os.Stdin.Fd()):
			return in
		case int(os.Stdout.Fd()):
			return out
		case int(os.Stderr.Fd()):
			return errOut
		}
		return false
	}
}

func noSize(int) (int, int, error) { return 0, 0, errors.New("not a terminal") }

func TestColorMatrix(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		outTTY  bool
		errTTY  bool
		wantOut bool
		wantErr bool
	}{
		{"terminal", nil, true, true, true, true},
		{"piped", nil, false, false, false, false},
		{"stdout piped, stderr terminal", nil, false, true, false, true},
		{"NO_COLOR", map[string]string{"NO_COLOR": "1"}, true, true, false, false},
		{"NO_COLOR empty counts as unset", map[string]string{"NO_COLOR": ""}, true, true, true, true},
		{"CLICOLOR=0", map[string]string{"CLICOLOR": "0"}, true, true, false, false},
		{"CLICOLOR=1", map[string]string{"CLICOLOR": "1"}, true, true, true, true},
		{"CLICOLOR=1 piped", map[string]string{"CLICOLOR": "1"}, false, false, false, false},
		{"CLICOLOR_FORCE piped", map[string]string{"CLICOLOR_FORCE": "1"}, false, false, true, true},
		{"CLICOLOR_FORCE=0", map[string]string{"CLICOLOR_FORCE": "0"}, false, false, false, false},
		{"CLICOLOR_FORCE beats NO_COLOR", map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}, true, true, true, true},
		{"CLICOLOR_FORCE beats CLICOLOR=0", map[string]string{"CLICOLOR_FORCE": "yes", "CLICOLOR": "0"}, false, true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios := systemWith(fakeEnv(tt.env), os.Stdin, os.Stdout, os.Stderr, fakeTerminal(false, tt.outTTY, tt.errTTY), noSize)
			if got := ios.ColorEnabled(); got != tt.wantOut {
				t.Errorf("ColorEnabled = %v, want %v", got, tt.wantOut)
			}
			if got := ios.ErrColorEnabled(); got != tt.wantErr {
				t.Errorf("ErrColorEnabled = %v, want %v", got, tt.wantErr)
			}
			if got := ios.Colors().Bold("x") != "x"; got != tt.wantOut {
				t.Errorf("Colors styled = %v, want %v", got, tt.wantOut)
			}
			// --no-color wins over everything.
			ios.DisableColor()
			if ios.ColorEnabled() || ios.ErrColorEnabled() || ios.Colors().Red("x") != "x" {
				t.Error("DisableColor left colour on")
			}
		})
	}
}

func TestTerminalDetectionAndWidth(t *testing.T) {
	size := func(w int) func(int) (int, int, error) {
		return func(int) (int, int, error) { return w, 50, nil }
	}
	ios := systemWith(fakeEnv(nil), os.Stdin, os.Stdout, os.Stderr, fakeTerminal(true, true, false), size(132))
	if !ios.IsStdinTTY() || !ios.IsStdoutTTY() || ios.IsStderrTTY() {
		t.Errorf("tty = %v %v %v", ios.IsStdinTTY(), ios.IsStdoutTTY(), ios.IsStderrTTY())
	}
	if w := ios.TerminalWidth(); w != 132 {
		t.Errorf("width %d, want 132 from the terminal", w)
	}

	ios = systemWith(fakeEnv(map[string]string{"COLUMNS": "99"}), os.Stdin, os.Stdout, os.Stderr, fakeTerminal(false, false, false), size(132))
	if w := ios.TerminalWidth(); w != 99 {
		t.Errorf("piped width %d, want 99 from COLUMNS", w)
	}
	ios = systemWith(fakeEnv(map[string]string{"COLUMNS": "wide"}), os.Stdin, os.Stdout, os.Stderr, fakeTerminal(false, true, false), noSize)
	if w := ios.TerminalWidth(); w != 80 {
		t.Errorf("fallback width %d, want 80", w)
	}
	ios.SetTerminalWidth(40)
	if w := ios.TerminalWidth(); w != 40 {
		t.Errorf("set width %d, want 40", w)
	}

	// The real thing must at least work under `go test`.
	sys := System()
	if sys.rawOut != os.Stdout || sys.ErrOut != os.Stderr || sys.In != os.Stdin || sys.TerminalWidth() <= 0 {
		t.Error("System() streams are not the process's")
	}
}

func TestTestStreams(t *testing.T) {
	ios, in, out, errOut := Test()
	if ios.IsStdinTTY() || ios.IsStdoutTTY() || ios.IsStderrTTY() || ios.ColorEnabled() || ios.TerminalWidth() != 80 {
		t.Error("Test() streams should be plain 80-column non-terminals")
	}
	in.WriteString("x")
	_, _ = ios.Out.Write([]byte("o"))
	_, _ = ios.ErrOut.Write([]byte("e"))
	if out.String() != "o" || errOut.String() != "e" || ios.In != in {
		t.Error("Test() buffers are not wired")
	}
	ios.SetStdinTTY(true)
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	if !ios.IsStdinTTY() || !ios.IsStdoutTTY() || !ios.IsStderrTTY() {
		t.Error("Set*TTY did not stick")
	}
	ios.SetColorEnabled(true)
	cs := ios.Colors()
	for name, got := range map[string]string{
		"bold": cs.Bold("x"), "red": cs.Red("x"), "green": cs.Green("x"), "yellow": cs.Yellow("x"), "gray": cs.Gray("x"),
	} {
		if got == "x" || got[0] != 0x1b {
			t.Errorf("%s not styled: %q", name, got)
		}
	}
}
