package terminal

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/test/internal/testbnpl"
)

// These run the real bnpl on a pseudo-terminal (see prompt_pty_test.go):
// interactive login, the hidden header value, and the confirmations of
// removals and resets. The keychain is the test binary's stand-in
// (TEST_KEYCHAIN), never the machine's.

// servedSandbox starts `bnpl sandbox serve` accepting local webhook URLs,
// and returns its UAE address.
func servedSandbox(t *testing.T, env []string) string {
	t.Helper()
	ae, err := testbnpl.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	sa, err := testbnpl.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bnpl", "sandbox", "serve", "--ae-addr", ae, "--sa-addr", sa, "--allow-local-webhooks")
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	url := "http://" + ae
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := client.Get(url + "/_sandbox/clock")
		if err == nil {
			resp.Body.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sandbox did not start: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func withKeychain(t *testing.T, env []string) []string {
	return append(env, "TEST_KEYCHAIN="+filepath.Join(t.TempDir(), "keychain.json"))
}

func TestLoginInteractiveOnPTY(t *testing.T) {
	env := withKeychain(t, ptyEnv(t))
	base := servedSandbox(t, env)
	r := startPTY(t, env, "login", "--base-url", base)
	r.waitOutput("Profile name [default]: ")
	r.send("desk\r")
	r.waitOutput("Region (ae for UAE and Kuwait, sa for KSA) [ae]: ")
	// A wrong region is caught at once, before any key is asked for.
	r.send("uk\r")
	r.waitOutput(`"uk" is not a region`)
	if strings.Contains(r.output(), "secret key") {
		t.Fatalf("a key was asked for before the region was right:\n%s", r.output())
	}
	r.send("ae\r")
	r.waitOutput("Merchant code: ")
	r.send("ae-sandbox\r")
	r.waitOutput("Test secret key (sk_test_..., empty to skip): ")
	r.waitEchoOff()
	// A key the service refuses is said at once, and asked for again.
	r.send("sk_test_unknown_key_0000\r")
	r.waitOutput("refused the test key sk_test_****0000 (401")
	r.waitOutput("nothing was stored\r\n")
	r.waitEchoOff()
	r.send("sk_test_ae_sandbox\r")
	r.waitOutput("checked: " + base + " accepted the test key sk_test_****dbox: merchant ae-sandbox, test mode, region ae")
	r.waitOutput("Live secret key (sk_..., empty to skip): ")
	r.waitEchoOff()
	r.send("\r")
	if code := r.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("login exited %d; terminal:\n%s", code, r.output())
	}
	out := r.output()
	for _, typed := range []string{"sk_test_ae_sandbox", "unknown_key"} {
		if strings.Contains(out, typed) {
			t.Errorf("the terminal shows the typed key %q:\n%s", typed, out)
		}
	}
	if !strings.Contains(out, "saved profile desk (region ae, merchant ae-sandbox)") || !strings.Contains(out, "test key sk_test_****dbox in the OS keychain") {
		t.Errorf("no saved line naming the keychain:\n%s", out)
	}
	if got := bnplOut(t, env, "profiles", "show", "desk", "-o", "json", "--jq", ".test_key_storage"); got != "keychain" {
		t.Errorf("test key storage %q, want keychain", got)
	}
}

func TestHeaderValueStdinHiddenOnPTY(t *testing.T) {
	env := ptyEnv(t)
	base := servedSandbox(t, env)
	env = append(env, "BNPL_BASE_URL="+base, "BNPL_SECRET_KEY=sk_test_ae_sandbox", "BNPL_MERCHANT_CODE=ae-sandbox")
	const value = "typed-hook-secret-7731"
	r := startPTY(t, env, "webhooks", "add", "http://127.0.0.1:9/hook", "--allow-local", "--header-title", "X-Hook", "--header-value-stdin", "-o", "json", "--jq", ".id")
	r.waitOutput("Value of header X-Hook (hidden): ")
	r.waitEchoOff()
	r.send(value + "\r")
	if code := r.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("webhooks add exited %d; terminal:\n%s", code, r.output())
	}
	if strings.Contains(r.output(), value) {
		t.Errorf("the typed header value was echoed:\n%s", r.output())
	}
	if got := bnplOut(t, env, "webhooks", "list", "-o", "json", "--jq", ".[0].header.value"); got != "****7731" {
		t.Errorf("registered header value %q, want ****7731", got)
	}

	// Ctrl-C at the hidden question: exit 130, nothing registered.
	liveEnv := append(env[:len(env):len(env)], "BNPL_SECRET_KEY=sk_ae_sandbox")
	r = startPTY(t, liveEnv, "dispute-webhooks", "add", "http://127.0.0.1:9/d", "--allow-local", "--header-title", "X-Hook", "--header-value-stdin")
	r.waitOutput("Value of header X-Hook (hidden): ")
	r.waitEchoOff()
	r.send("\x03")
	if code := r.waitExit(60 * time.Second); code != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130; terminal:\n%s", code, r.output())
	}
	if got := bnplOut(t, liveEnv, "dispute-webhooks", "list", "-o", "json", "--jq", "length"); got != "0" {
		t.Errorf("%s dispute webhooks after Ctrl-C, want 0", got)
	}
}

func TestConfirmationsOnPTY(t *testing.T) {
	env := withKeychain(t, ptyEnv(t))
	base := servedSandbox(t, env)
	login := exec.Command("bnpl", "login", "--profile", "shop", "--region", "ae", "--merchant-code", "ae-sandbox", "--base-url", base, "--with-key")
	login.Env = env
	login.Stdin = strings.NewReader("sk_ae_sandbox\n")
	if out, err := login.CombinedOutput(); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}

	// profiles remove: a no keeps the profile.
	for _, answer := range []string{"n\r", "\r"} {
		r := startPTY(t, env, "profiles", "remove", "shop")
		r.waitOutput("Remove profile shop and its keys? Type yes to confirm: ")
		r.send(answer)
		if code := r.waitExit(60 * time.Second); code != 2 {
			t.Fatalf("answer %q: exit %d, want 2; terminal:\n%s", answer, code, r.output())
		}
		if !strings.Contains(r.output(), "not confirmed: nothing was changed") {
			t.Errorf("answer %q: terminal:\n%s", answer, r.output())
		}
	}
	if got := bnplOut(t, env, "profiles", "list", "-o", "json", "--jq", "length"); got != "1" {
		t.Fatalf("%s profiles after declining, want 1", got)
	}

	// A live payment webhook: removing it asks; Ctrl-C keeps it.
	id := bnplOut(t, env, "--live", "webhooks", "add", "http://127.0.0.1:9/live", "--allow-local", "-o", "json", "--jq", ".id")
	r := startPTY(t, env, "--live", "webhooks", "remove", id)
	r.waitOutput("LIVE: remove payment webhook " + id + "? Type yes to confirm: ")
	r.send("\x03")
	if code := r.waitExit(60 * time.Second); code != 130 {
		t.Fatalf("webhooks remove: exit %d after Ctrl-C, want 130; terminal:\n%s", code, r.output())
	}
	if got := bnplOut(t, env, "--live", "webhooks", "list", "-o", "json", "--jq", "length"); got != "1" {
		t.Fatalf("%s live webhooks after Ctrl-C, want 1", got)
	}
	// --yes skips the question.
	r = startPTY(t, env, "--live", "webhooks", "remove", id, "--yes")
	if code := r.waitExit(10 * time.Second); code != 0 || strings.Contains(r.output(), "Type yes") {
		t.Fatalf("webhooks remove --yes: exit %d; terminal:\n%s", code, r.output())
	}

	// A dispute webhook (live only): yes removes it.
	did := bnplOut(t, env, "dispute-webhooks", "add", "http://127.0.0.1:9/d", "--live", "--allow-local", "-o", "json", "--jq", ".id")
	r = startPTY(t, env, "--live", "dispute-webhooks", "remove", did)
	r.waitOutput("LIVE: remove dispute webhook " + did + "? Type yes to confirm: ")
	r.send("yes\r")
	if code := r.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("dispute-webhooks remove: exit %d; terminal:\n%s", code, r.output())
	}

	// sandbox reset: no keeps the state.
	sbEnv := append(env[:len(env):len(env)], "BNPL_SANDBOX_URL="+base)
	r = startPTY(t, sbEnv, "sandbox", "reset")
	r.waitOutput("Forget every payment, session, dispute and webhook of the sandbox at " + base + "? Type yes to confirm: ")
	r.send("no\r")
	if code := r.waitExit(60 * time.Second); code != 2 {
		t.Fatalf("sandbox reset: exit %d after no, want 2; terminal:\n%s", code, r.output())
	}

	// yes removes the profile, and its keychain entry.
	r = startPTY(t, env, "profiles", "remove", "shop")
	r.waitOutput("Type yes to confirm: ")
	r.send("yes\r")
	if code := r.waitExit(60 * time.Second); code != 0 {
		t.Fatalf("profiles remove: exit %d after yes; terminal:\n%s", code, r.output())
	}
	keychain := env[len(env)-1][len("TEST_KEYCHAIN="):]
	if b, err := os.ReadFile(keychain); err != nil || strings.Contains(string(b), "shop/") {
		t.Errorf("the keychain still holds the profile's key (%v):\n%s", err, b)
	}
}
