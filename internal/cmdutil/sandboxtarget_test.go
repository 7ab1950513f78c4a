package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// servedSandbox is the sandbox's handler of region ae on a loopback test
// server.
func servedSandbox(t *testing.T) string {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	srv := httptest.NewServer(sb.Handler("ae"))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestProbeSandbox(t *testing.T) {
	ctx := context.Background()
	base := servedSandbox(t)
	if !ProbeSandbox(ctx, base) || !ProbeSandbox(ctx, base+"/") {
		t.Errorf("a served sandbox at %s is not recognized", base)
	}
	if !ProbeSandbox(ctx, strings.Replace(base, "127.0.0.1", "localhost", 1)) {
		t.Errorf("localhost is not dialled as 127.0.0.1")
	}
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>a shop</html>")
	}))
	defer shop.Close()
	if ProbeSandbox(ctx, shop.URL) {
		t.Errorf("a web site that answers 200 with HTML counts as a sandbox")
	}
	// Nothing listens there once closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	if ProbeSandbox(ctx, closed) {
		t.Errorf("a closed port counts as a sandbox")
	}
	// Not loopback: never asked (a name would need DNS, which the tests'
	// guard fails).
	for _, u := range []string{"https://api.example.com", "http://10.0.0.1:8700", "not a url", "ftp://127.0.0.1/"} {
		if ProbeSandbox(ctx, u) {
			t.Errorf("%s counts as a sandbox", u)
		}
	}
}

// A sandbox that answers its clock with its own error (a damaged state)
// is still the sandbox; a 5xx in another form, or a 4xx in the service's
// form, is not; a closed port is nothing at all.
func TestProbeSandboxErrors(t *testing.T) {
	ctx := context.Background()
	answering := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	form := `{"status":"error","errorType":"internal","error":"sandbox state: meta row \"clock_offset\" holds 1e+300"}`
	for _, c := range []struct {
		base string
		want probeResult
	}{
		{answering(500, form), probedSandbox},
		{answering(503, form), probedSandbox},
		{answering(500, "Internal Server Error"), probedOther},
		{answering(404, `{"status":"error","errorType":"not_found","error":"no such path"}`), probedOther},
		{answering(200, `{"now":""}`), probedOther},
	} {
		if got := probe(ctx, c.base); got != c.want {
			t.Errorf("probe %s: %v, want %v", c.base, got, c.want)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	if got := probe(ctx, closed); got != probedNothing {
		t.Errorf("closed port: %v", got)
	}
	if got := probe(ctx, "https://api.example.com"); got != probedOther {
		t.Errorf("not loopback: %v", got)
	}
}

func TestLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8700": true, "[::1]:8700": true, "localhost:1": true, "127.1.2.3:0": true,
		"0.0.0.0:8700": false, ":8700": false, "[::]:8700": false, "192.168.1.2:80": false,
		"myhost:80": false, "nonsense": false,
	} {
		if got := LoopbackAddr(addr); got != want {
			t.Errorf("LoopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestListenError(t *testing.T) {
	inUse := &net.OpError{Op: "listen", Net: "tcp", Err: &net.AddrError{Err: "x"}}
	inUse.Err = syscall.EADDRINUSE
	err := ListenError(inUse, "127.0.0.1:8787", "--addr")
	var h interface{ Hint() string }
	if !errors.As(err, &h) || !strings.Contains(h.Hint(), "--addr") || err.Error() != "cannot listen on 127.0.0.1:8787: the address is in use" {
		t.Errorf("in use: %v", err)
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("the cause is lost")
	}
	other := ListenError(errors.New("permission denied"), "127.0.0.1:80", "--addr")
	if errors.As(other, &h) || other.Error() != "cannot listen on 127.0.0.1:80: permission denied" {
		t.Errorf("other: %v", other)
	}
}

// sandboxFactory is a factory with env as its environment, a state
// directory of its own, and no config file unless profile is set.
func sandboxFactory(t *testing.T, env map[string]string, profile *config.Profile) (*Factory, *bytes.Buffer) {
	t.Helper()
	if profile != nil {
		f, stderr := liveFactory(t, *profile, env)
		t.Cleanup(f.Close)
		return f, stderr
	}
	dir := t.TempDir()
	f := New("test", "", "")
	ios, _, _, stderr := output.Test()
	f.IO = ios
	f.Getenv = func(k string) string {
		switch k {
		case "XDG_CONFIG_HOME":
			return filepath.Join(dir, "config")
		case "XDG_STATE_HOME", "HOME":
			return filepath.Join(dir, "state")
		}
		return env[k]
	}
	t.Cleanup(f.Close)
	return f, stderr
}

func apiGet(path string) api.RawRequest { return api.RawRequest{Method: http.MethodGet, Path: path} }

func TestResolveSandboxOrder(t *testing.T) {
	ctx := context.Background()
	served := servedSandbox(t)
	other := servedSandbox(t)

	cases := []struct {
		name    string
		flag    string
		env     map[string]string
		profile *config.Profile
		url     string
		notice  string
	}{
		{name: "the flag first", flag: other, env: map[string]string{EnvSandboxURL: served, config.EnvBaseURL: served},
			url: other, notice: "using the sandbox at " + other + " (--sandbox-url)\n"},
		{name: "then BNPL_SANDBOX_URL", env: map[string]string{EnvSandboxURL: other, config.EnvBaseURL: served},
			url: other, notice: "using the sandbox at " + other + " (BNPL_SANDBOX_URL)\n"},
		{name: "then BNPL_BASE_URL alone", env: map[string]string{config.EnvBaseURL: served},
			url: served, notice: "using the sandbox at " + served + " (BNPL_BASE_URL)\n"},
		{name: "a key and BNPL_BASE_URL", env: map[string]string{config.EnvBaseURL: served, config.EnvSecretKey: "sk_test_ae_sandbox"},
			url: served, notice: "using the sandbox at " + served + " (BNPL_BASE_URL)\n"},
		{name: "the profile's base URL", profile: &config.Profile{Name: "local", Region: "ae", MerchantCode: "ae-sandbox", BaseURL: served, TestSecretKey: "sk_test_ae_sandbox"},
			url: served, notice: "using the sandbox at " + served + " (profile local)\n"},
		{name: "a real service: the embedded state", env: map[string]string{config.EnvBaseURL: "https://api.example.com", config.EnvSecretKey: "sk_test_ae_sandbox"},
			notice: "the base URL https://api.example.com (BNPL_BASE_URL) is not a local sandbox)\n"},
		{name: "nothing: the embedded state", notice: "sandbox.db)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, stderr := sandboxFactory(t, c.env, c.profile)
			f.Global.SandboxURL = c.flag
			tg, err := f.ResolveSandbox(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tg.URL != c.url || tg.Embedded() != (c.url == "") {
				t.Errorf("URL %q, want %q", tg.URL, c.url)
			}
			if !strings.HasSuffix(stderr.String(), c.notice) || strings.Count(stderr.String(), "using ") != 1 {
				t.Errorf("stderr %q, want one line ending %q", stderr.String(), c.notice)
			}
			// Once per process: a second call neither asks nor says again.
			again, err := f.ResolveSandbox(ctx)
			if err != nil || again != tg || strings.Count(stderr.String(), "using ") != 1 {
				t.Errorf("second resolve: %v, %v, stderr %q", again, err, stderr.String())
			}
			raw, err := tg.Client.Raw(ctx, apiGet("/_sandbox/clock"))
			if err != nil || !strings.Contains(string(raw.Body), `"now"`) {
				t.Fatalf("the target's client: %v", err)
			}
		})
	}
}

func TestResolveSandboxWithSandboxFlagIsEmbedded(t *testing.T) {
	f, stderr := sandboxFactory(t, map[string]string{config.EnvBaseURL: servedSandbox(t)}, nil)
	f.Global.Sandbox = true
	tg, err := f.ResolveSandbox(context.Background())
	if err != nil || !tg.Embedded() || !strings.HasPrefix(stderr.String(), "using the embedded sandbox (state in ") {
		t.Errorf("--sandbox: %v %v, stderr %q", tg, err, stderr.String())
	}
}

func TestResolveSandboxQuiet(t *testing.T) {
	f, stderr := sandboxFactory(t, nil, nil)
	f.Global.Quiet = true
	if _, err := f.ResolveSandbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	if stderr.Len() != 0 {
		t.Errorf("--quiet: stderr %q", stderr.String())
	}
}

func TestResolveSandboxRefusesABadURL(t *testing.T) {
	f, _ := sandboxFactory(t, map[string]string{EnvSandboxURL: "127.0.0.1:8700"}, nil)
	_, err := f.ResolveSandbox(context.Background())
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "BNPL_SANDBOX_URL") {
		t.Errorf("got %v", err)
	}
}
