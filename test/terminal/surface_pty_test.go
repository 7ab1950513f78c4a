package terminal

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// On a terminal, a usage error is short and said once in words: no usage
// text, no JSON object after it, even with -o json. Off a terminal the
// JSON object follows, for the script reading stderr.
func TestUsageErrorOnPTY(t *testing.T) {
	env := ptyEnv(t)
	for _, args := range [][]string{
		{"payments", "get", "not-a-uuid", "-o", "json"},
		{"payments", "get", "not-a-uuid", "--jq", ".id"},
		{"payments", "captrue", "x", "-o", "json"},
		{"payments", "list", "--bogus", "-o", "json"},
	} {
		r := startPTY(t, env, args...)
		if code := r.waitExit(10 * time.Second); code != 2 {
			t.Fatalf("%v: exit %d, want 2; terminal:\n%s", args, code, r.output())
		}
		out := r.output()
		if strings.Contains(out, `"exit_code"`) || strings.Contains(out, `{"error"`) {
			t.Errorf("%v: JSON error object on a terminal:\n%s", args, out)
		}
		if strings.Contains(out, "Usage:") || strings.Contains(out, "Flags:") {
			t.Errorf("%v: usage text on a terminal:\n%s", args, out)
		}
		if strings.Count(out, "error: ") != 1 {
			t.Errorf("%v: want the error once:\n%s", args, out)
		}
		if args[1] != "get" && !strings.Contains(out, "--help' for usage.") {
			t.Errorf("%v: no pointer to --help:\n%s", args, out)
		}
		if n := strings.Count(strings.TrimSpace(out), "\n") + 1; n > 3 {
			t.Errorf("%v: %d lines, want at most 3:\n%s", args, n, out)
		}
	}

	// The same error piped: the JSON object is written, once.
	cmd := exec.Command("bnpl", "payments", "get", "not-a-uuid", "-o", "json")
	cmd.Env = env
	out, _ := cmd.CombinedOutput()
	if strings.Count(string(out), `"exit_code":2`) != 1 {
		t.Errorf("piped: want one JSON error object:\n%s", out)
	}
}

// An empty list on a terminal has one form: a line on stderr saying that
// nothing was found, and what to do; no empty header under it. Piped,
// nothing at all on stdout.
func TestEmptyListSaysNothingFoundOnPTY(t *testing.T) {
	env := ptyEnv(t)
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{[]string{"payments", "list", "--status", "rejected"}, "no payments match (status rejected)"},
		{[]string{"webhooks", "list"}, "no payment webhooks: add one with `bnpl webhooks add URL`"},
		{[]string{"profiles", "list"}, "no profiles: commands use the embedded sandbox; add one with `bnpl login`"},
	} {
		r := startPTY(t, env, tc.args...)
		if code := r.waitExit(10 * time.Second); code != 0 {
			t.Fatalf("%v: exit %d; terminal:\n%s", tc.args, code, r.output())
		}
		out := r.output()
		if !strings.Contains(out, tc.say) {
			t.Errorf("%v: no notice %q:\n%s", tc.args, tc.say, out)
		}
		if strings.Contains(out, "ID ") || strings.Contains(out, "STATUS") || strings.Contains(out, " yet") {
			t.Errorf("%v: more than the one line:\n%s", tc.args, out)
		}
	}
	if got := bnplOut(t, env, "payments", "list", "--status", "rejected"); got != "" {
		t.Errorf("piped: got %q, want nothing", got)
	}
}

// bnpl logout asks on a terminal; no keeps the keys, yes removes them and
// keeps the profile.
func TestLogoutOnPTY(t *testing.T) {
	env := withKeychain(t, ptyEnv(t))
	login := exec.Command("bnpl", "login", "--profile", "shop", "--region", "ae", "--merchant-code", "ae-sandbox", "--with-key", "--no-verify")
	login.Env = env
	login.Stdin = strings.NewReader("sk_test_ae_sandbox\n")
	if out, err := login.CombinedOutput(); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	r := startPTY(t, env, "logout")
	r.waitOutput("Remove the test key of profile shop? The profile stays. Type yes to confirm: ")
	r.send("n\r")
	if code := r.waitExit(60 * time.Second); code != 2 {
		t.Fatalf("no: exit %d, want 2; terminal:\n%s", code, r.output())
	}
	if got := bnplOut(t, env, "profiles", "list", "-o", "json", "--jq", ".[0].keys_in"); got != "keychain" {
		t.Fatalf("keys after declining: %q", got)
	}
	r = startPTY(t, env, "logout")
	r.waitOutput("Type yes to confirm: ")
	r.send("yes\r")
	if code := r.waitExit(60 * time.Second); code != 0 {
		t.Fatalf("yes: exit %d; terminal:\n%s", code, r.output())
	}
	if !strings.Contains(r.output(), "removed the test key of profile shop") {
		t.Errorf("terminal:\n%s", r.output())
	}
	if got := bnplOut(t, env, "profiles", "list", "-o", "json", "--jq", ".[0] | [.name, .region, .merchant_code, .keys_in] | join(\" \")"); got != "shop ae ae-sandbox" {
		t.Errorf("profile after logout: %q", got)
	}
	// --yes skips the question.
	r = startPTY(t, env, "logout", "--yes")
	if code := r.waitExit(60 * time.Second); code != 0 || strings.Contains(r.output(), "Type yes") {
		t.Fatalf("--yes: exit %d; terminal:\n%s", code, r.output())
	}
}
