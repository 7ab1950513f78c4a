package terminal

import (
	"strings"
	"testing"
	"time"
)

// In a CI job (CI set) a terminal on stdin is still asked: a person set CI
// in their shell, or sits at the runner's terminal. A reset waits for yes,
// a live money move asks rather than being refused; BNPL_QUIET=1 drops the
// notices as -q does, never the question.
func TestCIStillAsksATerminalOnPTY(t *testing.T) {
	env := ptyEnv(t)

	// Without CI, the terminal is asked first.
	r := startPTY(t, env, "sandbox", "reset")
	r.waitOutput("Type yes")
	r.send("n\r")
	if code := r.waitExit(10 * time.Second); code != 2 {
		t.Fatalf("declined reset: exit %d; terminal:\n%s", code, r.output())
	}

	ci := append(append([]string(nil), env...), "CI=true")
	r = startPTY(t, ci, "sandbox", "reset")
	r.waitOutput("Type yes")
	r.send("n\r")
	if code := r.waitExit(10 * time.Second); code != 2 {
		t.Fatalf("declined reset with CI set: exit %d; terminal:\n%s", code, r.output())
	}
	r = startPTY(t, ci, "sandbox", "reset")
	r.waitOutput("Type yes")
	r.send("yes\r")
	if code := r.waitExit(10 * time.Second); code != 0 || !strings.Contains(r.output(), "sandbox reset") {
		t.Fatalf("reset with CI set: exit %d; terminal:\n%s", code, r.output())
	}

	id := authorizedLivePayment(t, env)
	r = startPTY(t, ci, "--live", "payments", "capture", id, "--amount", "1")
	r.waitOutput("Type yes")
	r.send("no\r")
	if code := r.waitExit(10 * time.Second); code != 2 || strings.Contains(r.output(), "pass --yes") {
		t.Fatalf("live capture with CI set: exit %d; terminal:\n%s", code, r.output())
	}

	quiet := append(append([]string(nil), ci...), "BNPL_QUIET=1")
	r = startPTY(t, quiet, "sandbox", "reset")
	r.waitOutput("Type yes")
	r.send("yes\r")
	if code := r.waitExit(10 * time.Second); code != 0 || strings.Contains(r.output(), "sandbox reset") {
		t.Fatalf("reset with BNPL_QUIET=1: exit %d; terminal:\n%s", code, r.output())
	}

	// Without a terminal on stdin, CI or not, nothing is asked: a reset
	// goes ahead as in a script.
	if got := bnplOut(t, ci, "sandbox", "reset"); strings.Contains(got, "Type yes") {
		t.Fatalf("reset off a terminal asked: %q", got)
	}
}
