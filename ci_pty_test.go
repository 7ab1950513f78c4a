package main

import (
	"strings"
	"testing"
	"time"
)

// In a CI job (CI set) bnpl never prompts, even on a terminal: a reset goes
// ahead as in a script, a live money move is refused without --yes; and
// BNPL_QUIET=1 drops the notices as -q does.
func TestCIDoesNotPromptOnPTY(t *testing.T) {
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
	if code := r.waitExit(10 * time.Second); code != 0 || strings.Contains(r.output(), "Type yes") {
		t.Fatalf("reset with CI set: exit %d; terminal:\n%s", code, r.output())
	}
	if !strings.Contains(r.output(), "sandbox reset") {
		t.Fatalf("reset with CI set said nothing; terminal:\n%s", r.output())
	}

	id := authorizedLivePayment(t, env)
	r = startPTY(t, ci, "--live", "payments", "capture", id, "--amount", "1")
	if code := r.waitExit(10 * time.Second); code != 2 || strings.Contains(r.output(), "Type yes") {
		t.Fatalf("live capture with CI set: exit %d; terminal:\n%s", code, r.output())
	}
	if !strings.Contains(r.output(), "pass --yes") {
		t.Fatalf("live capture with CI set: terminal:\n%s", r.output())
	}

	quiet := append(append([]string(nil), ci...), "BNPL_QUIET=1")
	r = startPTY(t, quiet, "sandbox", "reset")
	if code := r.waitExit(10 * time.Second); code != 0 || strings.Contains(r.output(), "sandbox reset") {
		t.Fatalf("reset with BNPL_QUIET=1: exit %d; terminal:\n%s", code, r.output())
	}
}
