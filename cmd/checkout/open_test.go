package checkout

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

const (
	openSession = "8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c"
	openURL     = "http://127.0.0.1:8700/_sandbox/hpp/8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c"
)

// sessionServer answers every request with a created session whose
// checkout URL is openURL.
func sessionServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"` + openSession + `","status":"created","payment":{"id":"3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f","amount":"10.00","currency":"AED","status":"CREATED","is_test":true},` +
			`"configuration":{"available_products":{"installments":[{"web_url":"` + openURL + `"}]}}}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func clientOf(t *testing.T, base string) func() (*api.Client, error) {
	return func() (*api.Client, error) {
		return api.New(api.Options{BaseURL: base, SecretKey: "sk_test_ae_sandbox", Timeout: 5 * time.Second})
	}
}

func TestBrowserCommand(t *testing.T) {
	found := func(string) (string, error) { return "/usr/bin/xdg-open", nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	cases := []struct {
		name string
		env  map[string]string
		goos string
		look func(string) (string, error)
		want []string
	}{
		{"BROWSER", map[string]string{"BROWSER": "firefox"}, "linux", missing, []string{"firefox", "%s"}},
		{"BROWSER with arguments", map[string]string{"BROWSER": "chromium --incognito"}, "linux", missing, []string{"chromium", "--incognito", "%s"}},
		{"BROWSER with %s", map[string]string{"BROWSER": "w3m -o x=%s"}, "linux", missing, []string{"w3m", "-o", "x=%s"}},
		{"none", map[string]string{"BROWSER": "none", "DISPLAY": ":0"}, "linux", found, nil},
		{"a Linux desktop", map[string]string{"DISPLAY": ":0"}, "linux", found, []string{"xdg-open", "%s"}},
		{"Wayland", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, "freebsd", found, []string{"xdg-open", "%s"}},
		{"no display", nil, "linux", found, nil},
		{"no opener", map[string]string{"DISPLAY": ":0"}, "linux", missing, nil},
		{"macOS", nil, "darwin", missing, []string{"open", "%s"}},
		{"Windows", nil, "windows", missing, []string{"rundll32", "url.dll,FileProtocolHandler", "%s"}},
	}
	for _, c := range cases {
		got := BrowserCommand(func(k string) string { return c.env[k] }, c.goos, c.look)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := browserArgs([]string{"w3m", "-o", "x=%s", "%s"}, "http://h/p"); !reflect.DeepEqual(got, []string{"w3m", "-o", "x=http://h/p", "http://h/p"}) {
		t.Errorf("browserArgs: %q", got)
	}
}

func TestOpenRun(t *testing.T) {
	srv := sessionServer(t)
	run := func(env map[string]string, stdoutTTY bool, browser []string, runErr error) (ran []string, stdout, stderr string) {
		ios, _, out, errOut := output.Test()
		ios.SetStdoutTTY(stdoutTTY)
		o := &OpenOptions{ID: openSession, IO: ios, Getenv: func(k string) string { return env[k] },
			Notice: func(format string, args ...any) { errOut.WriteString(strings.TrimSpace(format) + "\n") },
			Client: clientOf(t, srv.URL),
			Printer: func() (*output.Printer, error) {
				return output.NewPrinter(ios, output.Options{})
			},
			Browser: func() []string { return browser },
			Run:     func(argv []string) error { ran = argv; return runErr },
		}
		if err := openRun(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		return ran, out.String(), errOut.String()
	}

	// A terminal with a browser: opened, nothing on stdout.
	ran, stdout, _ := run(nil, true, []string{"xdg-open", "%s"}, nil)
	if !reflect.DeepEqual(ran, []string{"xdg-open", openURL}) || stdout != "" {
		t.Errorf("terminal: ran %q, stdout %q", ran, stdout)
	}
	// Off a terminal without BROWSER: printed, not opened.
	ran, stdout, _ = run(nil, false, []string{"xdg-open", "%s"}, nil)
	if ran != nil || stdout != openURL+"\n" {
		t.Errorf("piped: ran %q, stdout %q", ran, stdout)
	}
	// Off a terminal, BROWSER named: opened.
	ran, _, _ = run(map[string]string{"BROWSER": "fake"}, false, []string{"fake", "%s"}, nil)
	if !reflect.DeepEqual(ran, []string{"fake", openURL}) {
		t.Errorf("BROWSER piped: ran %q", ran)
	}
	// No browser on a terminal: printed, with why.
	ran, stdout, stderr := run(nil, true, nil, nil)
	if ran != nil || stdout != openURL+"\n" || !strings.Contains(stderr, "no browser to open it with") {
		t.Errorf("no browser: ran %q, stdout %q, stderr %q", ran, stdout, stderr)
	}
	// A browser that fails: printed, with a warning.
	_, stdout, stderr = run(nil, true, []string{"broken"}, errors.New("exit status 3"))
	if stdout != openURL+"\n" || !strings.Contains(stderr, "warning: the browser did not open (broken: exit status 3)") {
		t.Errorf("failing browser: stdout %q, stderr %q", stdout, stderr)
	}
}

func TestCreateSaysWhetherTheCheckoutURLIsLive(t *testing.T) {
	srv := sessionServer(t)
	for _, live := range []bool{true, false} {
		ios, _, _, _ := output.Test()
		var notices []string
		var probed string
		o := newOpts(&notices)
		o.Notice = func(format string, args ...any) {
			notices = append(notices, strings.TrimSpace(strings.ReplaceAll(format, "%s", "_")))
		}
		o.File = filepath.Join("..", "..", "testdata", "checkout.json")
		o.Target = func() (*config.Target, error) {
			return &config.Target{Region: "ae", MerchantCode: "ae-sandbox", Embedded: true}, nil
		}
		o.Client = clientOf(t, srv.URL)
		o.Printer = func() (*output.Printer, error) { return output.NewPrinter(ios, output.Options{Format: "tsv"}) }
		o.Served = func(_ context.Context, base string) bool { probed = base; return live }
		if err := createRun(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if probed != "http://127.0.0.1:8700" {
			t.Errorf("probed %q, want the checkout URL's origin", probed)
		}
		all := strings.Join(notices, "\n")
		if live && !strings.Contains(all, "the checkout URL is live: a sandbox serves it at _") {
			t.Errorf("live: %s", all)
		}
		if !live && !strings.Contains(all, "the checkout URL is not live yet: nothing serves _; run `bnpl sandbox serve` to serve this state there") {
			t.Errorf("not live: %s", all)
		}
	}
}
