package terminal

import (
	"strings"
	"testing"
	"time"
)

// payments wait shows on a terminal what it waits for and what the
// payment is now, instead of a blank screen until it ends; its help gives
// the time-out's own exit code.
func TestWaitShowsItsProgressOnPTY(t *testing.T) {
	env := ptyEnv(t)
	id := bnplOut(t, env, "-q", "checkout", "create", "--input", "../../testdata/checkout.json", "--jq", ".payment.id")
	r := startPTYAt(t, env, 80, "payments", "wait", id, "--status", "authorized", "--wait-timeout", "1s", "--interval", "100ms")
	if code := r.waitExit(20 * time.Second); code != 13 {
		t.Fatalf("exit %d, want 13:\n%s", code, r.output())
	}
	if out := r.output(); !strings.Contains(out, "waiting for AUTHORIZED: the payment is CREATED (") {
		t.Errorf("no progress line:\n%q", out)
	}
	if help := bnplOut(t, env, "payments", "wait", "--help"); strings.Contains(help, "(exit 1)") || !strings.Contains(help, "(exit 13)") {
		t.Errorf("--wait-timeout's help gives another exit code:\n%s", help)
	}
}
