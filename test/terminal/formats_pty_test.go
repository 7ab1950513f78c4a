package terminal

import (
	"bytes"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/test/internal/testbnpl"
)

// These tests look at what a person sees on a terminal: the LIVE line of a
// command running with a live key, however the key was chosen, and colour
// that follows the terminal, NO_COLOR and --no-color.

const liveBadge = "\x1b[1;31mLIVE\x1b[0m"

// bnplIn runs bnpl off a terminal with stdin, returning stdout and stderr.
func bnplIn(t *testing.T, env []string, stdin string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command("bnpl", args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bnpl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

// onPTY runs bnpl on a terminal to its end and returns what it showed.
func onPTY(t *testing.T, env []string, args ...string) string {
	t.Helper()
	r := startPTY(t, env, args...)
	if code := r.waitExit(20 * time.Second); code != 0 {
		t.Fatalf("bnpl %s: exit %d; terminal:\n%s", strings.Join(args, " "), code, r.output())
	}
	return r.output()
}

// withColour drops NO_COLOR and names a terminal that takes colour.
func withColour(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") {
			out = append(out, kv)
		}
	}
	return append(out, "TERM=xterm-256color")
}

func TestLiveLineOnPTY(t *testing.T) {
	base := ptyEnv(t)
	url := servedSandbox(t, base)

	// A live key in the environment.
	envKey := append(append([]string(nil), base...),
		"BNPL_SECRET_KEY=sk_ae_sandbox", "BNPL_BASE_URL="+url, "BNPL_MERCHANT_CODE=ae-sandbox")
	out := onPTY(t, envKey, "payments", "list")
	if !strings.Contains(out, "LIVE  merchant ae-sandbox, live key from BNPL_SECRET_KEY") {
		t.Errorf("payments list with a live key in the environment shows no LIVE line:\n%s", out)
	}
	// doctor probes with a client of its own: the same line.
	r := startPTY(t, envKey, "doctor")
	r.waitExit(20 * time.Second)
	if !strings.Contains(r.output(), "LIVE  merchant ae-sandbox, live key from BNPL_SECRET_KEY") {
		t.Errorf("doctor with a live key shows no LIVE line:\n%s", r.output())
	}
	// --quiet keeps stderr to errors and questions.
	if out := onPTY(t, envKey, "payments", "list", "-q"); strings.Contains(out, "LIVE") {
		t.Errorf("-q still shows the LIVE line:\n%s", out)
	}
	// Not on a terminal: nothing.
	if _, stderr := bnplIn(t, envKey, "", "payments", "list"); strings.Contains(stderr, "LIVE") {
		t.Errorf("the LIVE line shows off a terminal: %q", stderr)
	}
	// A test key: nothing.
	testKey := append(append([]string(nil), base...),
		"BNPL_SECRET_KEY=sk_test_ae_sandbox", "BNPL_BASE_URL="+url, "BNPL_MERCHANT_CODE=ae-sandbox")
	if out := onPTY(t, testKey, "payments", "list"); strings.Contains(out, "LIVE") {
		t.Errorf("a test key shows the LIVE line:\n%s", out)
	}

	// A profile with both keys: disputes take its live key by themselves.
	prof := append([]string(nil), base...)
	for _, key := range []string{"sk_test_ae_sandbox", "sk_ae_sandbox"} {
		bnplIn(t, prof, key+"\n", "login", "--profile", "desk", "--region", "ae", "--merchant-code", "ae-sandbox",
			"--base-url", url, "--with-key", "--insecure-storage")
	}
	out = onPTY(t, prof, "disputes", "list")
	for _, want := range []string{
		"using the live key of profile desk: disputes have no test mode",
		"LIVE  merchant ae-sandbox, live key of profile desk",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("disputes list through a profile lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "LIVE  "); n != 1 {
		t.Errorf("the LIVE line shows %d times:\n%s", n, out)
	}
	// The embedded sandbox on a terminal: one line, the LIVE line, says it
	// all, why live included; no second notice saying the same.
	out = onPTY(t, ptyEnv(t), "disputes", "list")
	if !strings.Contains(out, "LIVE  the embedded sandbox, merchant ae-sandbox (disputes are live only)") || strings.Contains(out, "using the embedded sandbox") {
		t.Errorf("disputes list on the embedded sandbox:\n%s", out)
	}
	// --live on the profile; the test key shows nothing.
	if out := onPTY(t, prof, "payments", "list", "--live"); !strings.Contains(out, "LIVE  merchant ae-sandbox, live key of profile desk") {
		t.Errorf("payments list --live shows no LIVE line:\n%s", out)
	}
	if out := onPTY(t, prof, "payments", "list"); strings.Contains(out, "LIVE") {
		t.Errorf("the profile's test key shows the LIVE line:\n%s", out)
	}

	// Colour: bold red where the terminal takes it; none under
	// --no-color or NO_COLOR.
	if out := onPTY(t, withColour(envKey), "payments", "list"); !strings.Contains(out, liveBadge) {
		t.Errorf("LIVE is not bold red on a colour terminal:\n%q", out)
	}
	if out := onPTY(t, withColour(envKey), "payments", "list", "--no-color"); strings.Contains(out, "\x1b[") {
		t.Errorf("--no-color still colours:\n%q", out)
	}
	if out := onPTY(t, envKey, "payments", "list"); strings.Contains(out, "\x1b[") {
		t.Errorf("NO_COLOR still colours:\n%q", out)
	}
}

// TestStatusColourOnPTY: a table's statuses are coloured on a terminal that
// takes colour, and plain under NO_COLOR, --no-color and in a pipe.
func TestStatusColourOnPTY(t *testing.T) {
	env := ptyEnv(t)
	id := authorizedLivePayment(t, env)
	out := onPTY(t, withColour(env), "payments", "list", "--live")
	if !strings.Contains(out, "\x1b[33mAUTHORIZED\x1b[0m") {
		t.Errorf("AUTHORIZED is not yellow:\n%q", out)
	}
	if !strings.Contains(out, id) {
		t.Errorf("the payment %s is not listed:\n%s", id, out)
	}
	if out := onPTY(t, withColour(env), "payments", "list", "--live", "--no-color"); strings.Contains(out, "\x1b[") {
		t.Errorf("--no-color still colours:\n%q", out)
	}
	if stdout, _ := bnplIn(t, withColour(env), "", "payments", "list", "--live", "-o", "table"); strings.Contains(stdout, "\x1b[") {
		t.Errorf("a piped table is coloured:\n%q", stdout)
	}
}

// TestListenLineOnPTY: on a terminal, listen prints one line per
// notification with the time in the --time style and the amount in the
// one money format, whatever the sender wrote.
func TestListenLineOnPTY(t *testing.T) {
	env := ptyEnv(t)
	addr, err := testbnpl.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	r := startPTY(t, env, "listen", "--addr", addr, "--max", "1")
	r.waitOutput("listening on http://" + addr)
	body := `{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","status":"closed","amount":"45.75","currency":"KWD"}`
	resp, err := http.Post("http://"+addr+"/hooks", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code := r.waitExit(20 * time.Second); code != 0 {
		t.Fatalf("listen exit %d; terminal:\n%s", code, r.output())
	}
	line := regexp.MustCompile(`(?m)\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ  payment  3fa85f64-5717-4562-b3fc-2c963f66afa6  closed +45\.750 KWD\r?$`)
	if !line.MatchString(r.output()) {
		t.Errorf("no notification line in the one format:\n%s", r.output())
	}
}

// TestDataEscapesShownOnPTY: on a terminal, the escape sequences and bidi
// overrides a payment's data holds (an OSC 8 link, a clear-screen,
// U+202E) are shown as escapes in --jq, --template and tables, not obeyed;
// piped, the data's bytes are unchanged.
func TestDataEscapesShownOnPTY(t *testing.T) {
	env := ptyEnv(t)
	body := `{"payment":{"amount":"10.00","currency":"AED",` +
		`"description":"\u001b]8;;http://evil.example\u0007click\u001b]8;;\u0007 \u001b[2J \u202egpj.exe",` +
		`"buyer":{"name":"Layla Haddad","email":"otp.success@tabby.ai","phone":"+971500000001"},` +
		`"shipping_address":{"city":"Dubai","address":"Marina","zip":"00000"},"order":{"reference_id":"EVIL-1","items":[]}},` +
		`"lang":"en","merchant_code":"ae-sandbox","merchant_urls":{"success":"https://shop.example.com/s","cancel":"https://shop.example.com/c","failure":"https://shop.example.com/f"}}`
	id, _ := bnplIn(t, env, body, "checkout", "create", "--file", "-", "--jq", ".payment.id")
	id = strings.TrimSpace(id)
	for _, args := range [][]string{
		{"payments", "get", id, "--jq", ".description"},
		{"payments", "get", id, "--template", "{{.description}}"},
		{"payments", "list", "--status", "created", "--columns", "id,description"},
	} {
		out := onPTY(t, env, args...)
		if strings.Contains(out, "\x1b]8;;") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\u202e") {
			t.Errorf("bnpl %s obeys the data on a terminal:\n%q", strings.Join(args, " "), out)
		}
		if !strings.Contains(out, `\x1b]8;;http://evil.example`) && !strings.Contains(out, `\x1b]8;;http://evil`) {
			t.Errorf("bnpl %s does not show the escape:\n%q", strings.Join(args, " "), out)
		}
	}
	piped, _ := bnplIn(t, env, "", "payments", "get", id, "--jq", ".description")
	if !strings.Contains(piped, "\x1b]8;;http://evil.example\x07") || !strings.Contains(piped, "\u202e") {
		t.Errorf("piped output changed: %q", piped)
	}
}
