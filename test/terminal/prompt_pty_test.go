package terminal

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// These tests run the real bnpl (the test binary that TestMain puts on
// PATH) on a pseudo-terminal, the way a person meets its prompts.

// ptyRun is bnpl running on a pseudo-terminal.
type ptyRun struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
	// drained closes when the terminal has nothing more to read: the
	// program exited and its last output was read.
	drained chan struct{}
	exit    int
}

func startPTY(t *testing.T, env []string, args ...string) *ptyRun {
	t.Helper()
	return startPTYAt(t, env, 120, args...)
}

// startPTYAt is startPTY on a terminal cols wide.
func startPTYAt(t *testing.T, env []string, cols uint16, args ...string) *ptyRun {
	t.Helper()
	cmd := exec.Command("bnpl", args...)
	cmd.Env = env
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: cols})
	if err != nil {
		t.Fatalf("start bnpl on a pty: %v", err)
	}
	r := &ptyRun{t: t, cmd: cmd, tty: tty, done: make(chan struct{}), drained: make(chan struct{})}
	go func() {
		defer close(r.drained)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			r.mu.Lock()
			r.out.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			r.exit = 0
		case errors.As(err, &ee):
			r.exit = ee.ExitCode()
		default:
			r.exit = -1
		}
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = cmd.Process.Kill()
			<-r.done
		}
		tty.Close()
	})
	return r
}

func (r *ptyRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// waitOutput waits until the terminal shows s.
func (r *ptyRun) waitOutput(s string) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(r.output(), s) {
		if time.Now().After(deadline) {
			r.t.Fatalf("the terminal never showed %q; it shows:\n%s", s, r.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitEchoOff waits until the program's hidden read has turned the
// terminal's echo off, so that what is typed next cannot be echoed by a
// terminal that was not yet told to hide it.
func (r *ptyRun) waitEchoOff() {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		tio, err := unix.IoctlGetTermios(int(r.tty.Fd()), unix.TCGETS)
		if err != nil {
			r.t.Fatalf("reading the terminal's modes: %v", err)
		}
		if tio.Lflag&unix.ECHO == 0 {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the terminal's echo was never turned off; it shows:\n%s", r.output())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *ptyRun) send(s string) {
	r.t.Helper()
	if _, err := r.tty.Write([]byte(s)); err != nil {
		r.t.Fatalf("type %q: %v", s, err)
	}
}

// waitExit waits at most within for the command to end and returns its
// exit code.
func (r *ptyRun) waitExit(within time.Duration) int {
	r.t.Helper()
	select {
	case <-r.done:
		// What the program wrote last may still be in the terminal.
		select {
		case <-r.drained:
		case <-time.After(2 * time.Second):
		}
		return r.exit
	case <-time.After(within):
		r.t.Fatalf("bnpl still runs %s after the input; terminal:\n%s", within, r.output())
	}
	return 0
}

// ptyEnv is an environment with its own home, config and state, so that
// bnpl talks to an embedded sandbox of its own.
func ptyEnv(t *testing.T) []string {
	home := t.TempDir()
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"NO_COLOR=1",
		"TERM=dumb",
		"GORACE=atexit_sleep_ms=0",
		"PATH=" + os.Getenv("PATH"),
		// No pager (the machine's less would be one on a colour
		// terminal): what bnpl writes is what the test reads.
		"BNPL_PAGER=cat",
	}
	return env
}

func bnplOut(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("bnpl", args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bnpl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// authorizedLivePayment makes a live payment of the embedded sandbox and
// approves it.
func authorizedLivePayment(t *testing.T, env []string) string {
	t.Helper()
	return authorizedPaymentIn(t, env, "--live")
}

// authorizedPayment creates a checkout of testdata/checkout.json in test
// mode and approves it, returning the payment's id.
func authorizedPayment(t *testing.T, env []string) string {
	t.Helper()
	return authorizedPaymentIn(t, env)
}

// authorizedPaymentIn creates a checkout of testdata/checkout.json and
// approves it, each command run with the flags given first (--live).
func authorizedPaymentIn(t *testing.T, env []string, flags ...string) string {
	t.Helper()
	id := bnplOut(t, env, append(flags, "checkout", "create", "--file", checkoutFile(t), "--jq", ".payment.id")...)
	bnplOut(t, env, append(flags, "sandbox", "approve", id, "-q")...)
	return id
}

// checkoutFile is the absolute path of testdata/checkout.json.
func checkoutFile(t *testing.T) string {
	t.Helper()
	checkout, err := filepath.Abs("../../testdata/checkout.json")
	if err != nil {
		t.Fatal(err)
	}
	return checkout
}

const livePrompt = "Type yes to confirm: "

func TestLiveConfirmationCtrlC(t *testing.T) {
	env := ptyEnv(t)
	id := authorizedLivePayment(t, env)

	r := startPTY(t, env, "--live", "payments", "capture", id, "--amount", "10", "--reference-id", "CTRL-C-1")
	r.waitOutput(livePrompt)
	if !strings.Contains(r.output(), "10.00 AED") {
		t.Errorf("the confirmation does not name the amount: %q", r.output())
	}
	r.send("\x03")
	if code := r.waitExit(60 * time.Second); code != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130; terminal:\n%s", code, r.output())
	}
	after := r.output()[strings.Index(r.output(), livePrompt)+len(livePrompt):]
	if strings.Trim(strings.ReplaceAll(after, "^C", ""), "\r\n") != "" {
		t.Errorf("after Ctrl-C bnpl printed more than a newline: %q", after)
	}
	if n := bnplOut(t, env, "--live", "payments", "get", id, "-o", "json", "--jq", ".captures | length"); n != "0" {
		t.Errorf("the payment holds %s captures after Ctrl-C at the confirmation, want 0", n)
	}
}

func TestLiveConfirmationDeclined(t *testing.T) {
	env := ptyEnv(t)
	id := authorizedLivePayment(t, env)
	for _, answer := range []string{"n\r", "\r", "sure\r"} {
		r := startPTY(t, env, "--live", "payments", "capture", id, "--amount", "10")
		r.waitOutput(livePrompt)
		r.send(answer)
		if code := r.waitExit(60 * time.Second); code != 2 {
			t.Fatalf("answer %q: exit %d, want 2; terminal:\n%s", answer, code, r.output())
		}
		out := r.output()
		if !strings.Contains(out, "not confirmed: nothing was sent") {
			t.Errorf("answer %q: no 'not confirmed: nothing was sent' in:\n%s", answer, out)
		}
		if strings.Contains(out, "--yes") {
			t.Errorf("answer %q: the refusal suggests --yes:\n%s", answer, out)
		}
	}
	if n := bnplOut(t, env, "--live", "payments", "get", id, "-o", "json", "--jq", ".captures | length"); n != "0" {
		t.Errorf("the payment holds %s captures after declined confirmations, want 0", n)
	}

	// yes goes ahead.
	r := startPTY(t, env, "--live", "payments", "capture", id, "--amount", "10")
	r.waitOutput(livePrompt)
	r.send("yes\r")
	if code := r.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("exit %d after yes; terminal:\n%s", code, r.output())
	}
	if n := bnplOut(t, env, "--live", "payments", "get", id, "-o", "json", "--jq", ".captures | length"); n != "1" {
		t.Errorf("the payment holds %s captures after yes, want 1", n)
	}
}

func TestLoginCtrlC(t *testing.T) {
	env := ptyEnv(t)
	config := filepath.Join(env[2][len("XDG_CONFIG_HOME="):], "bnpl")

	// At a visible question.
	r := startPTY(t, env, "login")
	r.waitOutput("Profile name")
	r.send("\x03")
	if code := r.waitExit(60 * time.Second); code != 130 {
		t.Fatalf("login: exit %d after Ctrl-C, want 130; terminal:\n%s", code, r.output())
	}

	// At a hidden question: the terminal echoes again afterwards.
	r = startPTY(t, env, "login")
	r.waitOutput("Profile name")
	r.send("desk\r")
	r.waitOutput("Region")
	r.send("ae\r")
	r.waitOutput("Merchant code")
	r.send("shop\r")
	r.waitOutput("Test secret key")
	r.waitEchoOff()
	r.send("\x03")
	if code := r.waitExit(60 * time.Second); code != 130 {
		t.Fatalf("login: exit %d after Ctrl-C at the key, want 130; terminal:\n%s", code, r.output())
	}
	tio, err := unix.IoctlGetTermios(int(r.tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatalf("read the terminal's mode: %v", err)
	}
	if tio.Lflag&unix.ECHO == 0 {
		t.Errorf("Ctrl-C at the hidden key prompt left the terminal without echo")
	}
	if _, err := os.Stat(filepath.Join(config, "config.yaml")); err == nil {
		t.Errorf("an interrupted login saved a profile")
	}
}
