package doctor

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/config/configtest"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// setup writes a config file with mode and returns an environment that
// finds it.
func setup(t *testing.T, content string, mode os.FileMode, extra map[string]string) func(string) string {
	t.Helper()
	dir := t.TempDir()
	if content != "" {
		configtest.WriteFile(t, filepath.Join(dir, "bnpl", "config.yaml"), content, mode)
	}
	env := map[string]string{"XDG_CONFIG_HOME": dir, "HOME": dir}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

const goodConfig = `current_profile: shop
profiles:
  shop:
    region: ae
    merchant_code: shop-ae
    test_secret_key: sk_test_0123456789abcdef
    live_secret_key: sk_0123456789abcdefgh
`

func probeAnswer(res *ProbeResult, err error) func(context.Context, *config.Target) (*ProbeResult, error) {
	return func(context.Context, *config.Target) (*ProbeResult, error) { return res, err }
}

func byName(checks []Check) map[string]Check {
	m := map[string]Check{}
	for _, c := range checks {
		m[c.Name] = c
	}
	return m
}

func run(getenv func(string) string, probe func(context.Context, *config.Target) (*ProbeResult, error)) map[string]Check {
	return byName(Run(context.Background(), Deps{Getenv: getenv, Probe: probe, Now: func() time.Time { return now }}))
}

func TestGoodProfile(t *testing.T) {
	getenv := setup(t, goodConfig, 0o600, nil)
	checks := run(getenv, probeAnswer(&ProbeResult{Status: 200, Date: now.Add(-3 * time.Second).Format(http.TimeFormat), Currency: "AED"}, nil))
	for _, name := range []string{"config file", "profile shop", "profile shop keys", "target", "reachability", "region", "clock"} {
		c, ok := checks[name]
		if !ok {
			t.Errorf("no %q check", name)
			continue
		}
		if c.Status != StatusOK {
			t.Errorf("%s: %s %s", name, c.Status, c.Message)
		}
	}
	if !strings.Contains(checks["profile shop keys"].Message, "sk_test_****cdef") {
		t.Errorf("keys: %q", checks["profile shop keys"].Message)
	}
	for _, c := range checks {
		if strings.Contains(c.Message+c.Fix, "0123456789") {
			t.Errorf("%s shows a key: %q", c.Name, c.Message)
		}
	}
}

func TestLoosePermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("mode bits")
	}
	checks := run(setup(t, goodConfig, 0o644, nil), probeAnswer(&ProbeResult{Status: 200}, nil))
	c := checks["config file"]
	if c.Status != StatusFail || !strings.Contains(c.Fix, "chmod 600") {
		t.Errorf("0644: %+v", c)
	}
	checks = run(setup(t, goodConfig, 0o620, nil), probeAnswer(&ProbeResult{Status: 200}, nil))
	if c := checks["config file"]; c.Status != StatusWarn {
		t.Errorf("0620: %+v", c)
	}
}

func TestKeysInTheWrongSlot(t *testing.T) {
	cfg := `profiles:
  mixed:
    region: ae
    test_secret_key: sk_0123456789abcdefgh
    live_secret_key: sk_test_0123456789abcdef
`
	checks := run(setup(t, cfg, 0o600, nil), probeAnswer(&ProbeResult{Status: 200}, nil))
	c := checks["profile mixed keys"]
	if c.Status != StatusFail || !strings.Contains(c.Message, "LIVE key") || !strings.Contains(c.Message, "is a test key") {
		t.Errorf("keys: %+v", c)
	}
	if p := checks["profile mixed"]; p.Status != StatusWarn || !strings.Contains(p.Message, "merchant code") {
		t.Errorf("profile: %+v", p)
	}
}

func TestReachability(t *testing.T) {
	getenv := setup(t, goodConfig, 0o600, nil)
	cases := []struct {
		res    *ProbeResult
		err    error
		status string
		word   string
	}{
		{nil, errors.New("dial tcp 127.0.0.1:1: connection refused"), StatusFail, "cannot reach"},
		{&ProbeResult{Status: 401, Message: "invalid secret key"}, nil, StatusFail, "refused the key"},
		{&ProbeResult{Status: 403, Message: "merchant region does not match cluster region"}, nil, StatusFail, "region sa"},
		{&ProbeResult{Status: 404}, nil, StatusFail, "does not look like the service"},
		{&ProbeResult{Status: 503}, nil, StatusWarn, "503"},
	}
	for _, c := range cases {
		checks := run(getenv, probeAnswer(c.res, c.err))
		got := checks["reachability"]
		if got.Status != c.status || !strings.Contains(got.Message, c.word) || got.Fix == "" {
			t.Errorf("%v %v: %+v", c.res, c.err, got)
		}
		if c.err != nil && checks["clock"].Status != StatusSkip {
			t.Errorf("no answer: clock %+v", checks["clock"])
		}
	}
}

func TestRegionAgainstCurrency(t *testing.T) {
	getenv := setup(t, goodConfig, 0o600, nil)
	if c := run(getenv, probeAnswer(&ProbeResult{Status: 200, Currency: "SAR"}, nil))["region"]; c.Status != StatusFail || !strings.Contains(c.Fix, "--region sa") {
		t.Errorf("SAR on ae: %+v", c)
	}
	if c := run(getenv, probeAnswer(&ProbeResult{Status: 200, Currency: "KWD"}, nil))["region"]; c.Status != StatusOK {
		t.Errorf("KWD on ae: %+v", c)
	}
	if c := run(getenv, probeAnswer(&ProbeResult{Status: 200}, nil))["region"]; c.Status != StatusSkip {
		t.Errorf("no payment: %+v", c)
	}
}

func TestClockSkew(t *testing.T) {
	getenv := setup(t, goodConfig, 0o600, nil)
	ahead := run(getenv, probeAnswer(&ProbeResult{Status: 200, Date: now.Add(-7 * time.Minute).Format(http.TimeFormat)}, nil))["clock"]
	if ahead.Status != StatusWarn || !strings.Contains(ahead.Message, "7m0s ahead") {
		t.Errorf("7 minutes: %+v", ahead)
	}
	behind := run(getenv, probeAnswer(&ProbeResult{Status: 200, Date: now.Add(2 * time.Minute).Format(http.TimeFormat)}, nil))["clock"]
	if behind.Status != StatusOK || !strings.Contains(behind.Message, "behind") {
		t.Errorf("2 minutes: %+v", behind)
	}
}

func TestUnresolvableTarget(t *testing.T) {
	cfg := goodConfig + `  other:
    region: sa
    test_secret_key: sk_test_abcdefghijklmnop
`
	cfg = strings.Replace(cfg, "current_profile: shop\n", "", 1)
	checks := Run(context.Background(), Deps{
		Getenv: setup(t, cfg, 0o600, nil),
		Probe: func(context.Context, *config.Target) (*ProbeResult, error) {
			t.Fatal("probed without a target")
			return nil, nil
		},
		Now: func() time.Time { return now },
	})
	last := checks[len(checks)-1]
	if last.Name != "target" || last.Status != StatusFail || last.Fix == "" {
		t.Errorf("last: %+v", last)
	}
}

func TestNoConfigIsTheEmbeddedSandbox(t *testing.T) {
	checks := run(setup(t, "", 0, nil), probeAnswer(&ProbeResult{Status: 200}, nil))
	if c := checks["config file"]; c.Status != StatusOK || !strings.Contains(c.Message, "embedded sandbox") {
		t.Errorf("config: %+v", c)
	}
	if c := checks["region"]; c.Status != StatusOK || !strings.Contains(c.Message, "AED") {
		t.Errorf("region: %+v", c)
	}
	if c := checks["clock"]; c.Status != StatusSkip {
		t.Errorf("clock: %+v", c)
	}
}

func TestMain(m *testing.M) {
	// No test may reach the machine's keychain: go-keyring's mock stands in.
	keyring.MockInit()
	restore := config.UseKeychainStore(config.GoKeyringStore(), time.Second)
	code := m.Run()
	restore()
	os.Exit(code)
}

const keychainConfig = `current_profile: shop
profiles:
  shop:
    region: ae
    merchant_code: shop-ae
    test_secret_key_in: keychain
    live_secret_key: sk_0123456789abcdefgh
`

func TestKeysSayWhereTheyLive(t *testing.T) {
	keyring.MockInit()
	getenv := setup(t, keychainConfig, 0o600, nil)
	path := config.DefaultPath(getenv)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.StoreKey("shop", "sk_test_0123456789abcdef", true); err != nil {
		t.Fatal(err)
	}
	checks := run(getenv, probeAnswer(&ProbeResult{Status: 200}, nil))
	keys := checks["profile shop keys"]
	if keys.Status != StatusOK || keys.Message != "test_secret_key sk_test_****cdef in the OS keychain, live_secret_key sk_****efgh in the config file" {
		t.Errorf("keys: %+v", keys)
	}
	if tg := checks["target"]; !strings.Contains(tg.Message, "test key sk_test_****cdef from the OS keychain") {
		t.Errorf("target: %+v", tg)
	}

	// The environment wins, and the target says so.
	checks = run(setup(t, keychainConfig, 0o600, map[string]string{config.EnvSecretKey: "sk_test_fromtheenvironment"}), probeAnswer(&ProbeResult{Status: 200}, nil))
	if tg := checks["target"]; !strings.Contains(tg.Message, "from BNPL_SECRET_KEY (it wins over the profile's keys)") {
		t.Errorf("target with the environment: %+v", tg)
	}

	// A keychain that cannot answer: the keys check warns with the ways on,
	// the target fails with the keychain's error.
	keyring.MockInitWithError(errors.New("collection is locked"))
	checks = run(getenv, probeAnswer(&ProbeResult{Status: 200}, nil))
	keys = checks["profile shop keys"]
	if keys.Status != StatusWarn || !strings.Contains(keys.Message, "test_secret_key is in the OS keychain, which cannot give it (no OS keychain answered (collection is locked))") ||
		!strings.Contains(keys.Fix, "--insecure-storage") {
		t.Errorf("keys, keychain locked: %+v", keys)
	}
	if tg := checks["target"]; tg.Status != StatusFail || !strings.Contains(tg.Fix, config.EnvSecretKey) {
		t.Errorf("target, keychain locked: %+v", tg)
	}
}

func TestConfigDirectoryOthersCanWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("mode bits")
	}
	getenv := setup(t, goodConfig, 0o600, nil)
	dir := filepath.Dir(config.DefaultPath(getenv))
	if c := run(getenv, probeAnswer(&ProbeResult{Status: 200}, nil))["config directory"]; c.Status != StatusOK {
		t.Errorf("private: %+v", c)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	c := run(getenv, probeAnswer(&ProbeResult{Status: 200}, nil))["config directory"]
	if c.Status != StatusWarn || !strings.Contains(c.Message, "can be written by other users (mode 0777)") || c.Fix != "chmod go-w "+dir {
		t.Errorf("0777: %+v", c)
	}

	// The config is a link into a shared directory.
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o775); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := config.DefaultPath(getenv)
	if err := os.Rename(path, filepath.Join(shared, "bnpl.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(shared, "bnpl.yaml"), path); err != nil {
		t.Fatal(err)
	}
	c = run(getenv, probeAnswer(&ProbeResult{Status: 200}, nil))["config directory"]
	if c.Status != StatusWarn || !strings.Contains(c.Message, "the directory "+shared+" of the file the config link leads to") {
		t.Errorf("link into a shared directory: %+v", c)
	}
}

// doctor's fix for a network error is its own: the client's hint would
// send the person to `bnpl doctor`, which they are running.
func TestReachabilityFixIsNotDoctor(t *testing.T) {
	getenv := setup(t, goodConfig, 0o600, nil)
	err := cmdutil.WithHint(errors.New("could not connect"), "nothing was sent: check the network and the base URL (`bnpl doctor`)")
	got := run(getenv, probeAnswer(nil, err))["reachability"]
	if got.Status != StatusFail || got.Fix == "" || strings.Contains(got.Fix, "bnpl doctor") {
		t.Errorf("fix %q", got.Fix)
	}
}
