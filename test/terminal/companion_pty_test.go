package terminal

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Terminal behaviour of the sandbox companion: smoke shows each step once,
// reset asks about the sandbox the verbs follow, checkout open prints the
// URL when there is no browser.

var smokeSteps = []string{
	"auth and region", "checkout create", "checkout read", "webhooks list",
	"customer approves (sandbox)", "capture part", "capture rest", "refund part",
	"close another payment", "payments list",
}

func TestSmokeOnTerminalShowsEachStepOnce(t *testing.T) {
	env := ptyEnv(t)
	r := startPTY(t, env, "smoke")
	if code := r.waitExit(60 * time.Second); code != 0 {
		t.Fatalf("smoke: exit %d; terminal:\n%s", code, r.output())
	}
	out := r.output()
	checkEachStepOnce(t, out)
	if strings.Contains(out, "STEP") {
		t.Errorf("the summary table repeats the steps on the terminal:\n%s", out)
	}
	if !strings.Contains(out, "10 passed, 0 failed") {
		t.Errorf("no counts line:\n%s", out)
	}
}

// checkEachStepOnce checks that each step has exactly one line on the
// terminal (a line that starts with its name, or with "smoke: " and it).
func checkEachStepOnce(t *testing.T, out string) {
	t.Helper()
	for _, step := range smokeSteps {
		re := regexp.MustCompile(`(?m)^(smoke: )?` + regexp.QuoteMeta(step) + `\s`)
		if n := len(re.FindAllString(out, -1)); n != 1 {
			t.Errorf("step %q shows %d times on the terminal, want once:\n%s", step, n, out)
		}
	}
}

func TestFailingSmokeOnTerminal(t *testing.T) {
	env := ptyEnv(t)
	base := servedSandbox(t, env)
	env = append(env, "BNPL_SECRET_KEY=sk_test_not_a_real_key_0000", "BNPL_BASE_URL="+base, "BNPL_MERCHANT_CODE=ae-sandbox")
	r := startPTY(t, env, "smoke")
	if code := r.waitExit(60 * time.Second); code != 4 {
		t.Fatalf("smoke: exit %d, want 4; terminal:\n%s", code, r.output())
	}
	out := r.output()
	checkEachStepOnce(t, out)
	if !regexp.MustCompile(`(?m)^smoke: auth and region +failed .*401 not_authorized`).MatchString(out) {
		t.Errorf("the failed step does not say why:\n%s", out)
	}
	if n := strings.Count(out, "hint: "); n != 1 {
		t.Errorf("the hint shows %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "0 passed, 1 failed, 9 skipped") {
		t.Errorf("no counts line:\n%s", out)
	}
	if strings.Contains(out, "sk_test_not_a_real_key_0000") {
		t.Errorf("the key shows on the terminal:\n%s", out)
	}
}

func TestSandboxResetAsksAboutTheSandboxItFollows(t *testing.T) {
	env := ptyEnv(t)
	base := servedSandbox(t, env)
	env = append(env, "BNPL_BASE_URL="+base)
	r := startPTY(t, env, "sandbox", "reset")
	r.waitOutput("using the sandbox at " + base + " (BNPL_BASE_URL)")
	r.waitOutput("Forget every payment, session, dispute and webhook of the sandbox at " + base + "? Type yes to confirm: ")
	r.send("yes\r")
	if code := r.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("sandbox reset: exit %d after yes; terminal:\n%s", code, r.output())
	}
	if !strings.Contains(r.output(), "sandbox reset") {
		t.Errorf("no confirmation of the reset:\n%s", r.output())
	}
}

func TestCheckoutOpenOnTerminal(t *testing.T) {
	env := ptyEnv(t)
	id := bnplOut(t, env, "checkout", "create", "--file", checkoutFile(t), "--jq", ".id")
	url := regexp.MustCompile(`http://127\.0\.0\.1:8700/_sandbox/hpp/` + id)

	// No BROWSER and no display: nothing to open it with, so the URL.
	r := startPTY(t, env, "checkout", "open", id)
	if code := r.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("checkout open: exit %d; terminal:\n%s", code, r.output())
	}
	if out := r.output(); !strings.Contains(out, "no browser to open it with (set BROWSER to one)") || !url.MatchString(out) {
		t.Errorf("want the URL and why it was not opened:\n%s", out)
	}

	// A browser: it gets the URL, and the terminal says so.
	dir := t.TempDir()
	browser := filepath.Join(dir, "browser.sh")
	record := filepath.Join(dir, "opened.txt")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\necho \"$1\" > "+record+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = startPTY(t, append(env, "BROWSER="+browser), "checkout", "open", id)
	if code := r.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("checkout open: exit %d; terminal:\n%s", code, r.output())
	}
	if out := r.output(); !strings.Contains(out, "opening http://127.0.0.1:8700/_sandbox/hpp/"+id+" in the browser") {
		t.Errorf("want the opening notice:\n%s", out)
	}
	if b, err := os.ReadFile(record); err != nil || !url.Match(b) {
		t.Errorf("the browser got %q (%v)", b, err)
	}
}
