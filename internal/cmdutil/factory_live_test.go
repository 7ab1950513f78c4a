package cmdutil

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// liveFactory is a factory over a config file holding profile p, with env
// as the environment.
func liveFactory(t *testing.T, p config.Profile, env map[string]string) (*Factory, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "XDG_CONFIG_HOME":
			return dir
		case "XDG_STATE_HOME", "HOME":
			return filepath.Join(dir, "home")
		}
		return env[k]
	}
	cfg, err := config.Load(config.DefaultPath(getenv))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.SetProfile(p); err != nil {
		t.Fatal(err)
	}
	if err := cfg.SetCurrent(p.Name); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(); err != nil {
		t.Fatal(err)
	}
	ios, _, _, stderr := output.Test()
	f := New("test", "", "")
	f.IO, f.Getenv = ios, getenv
	return f, stderr
}

func TestLiveTargetUsesTheProfilesLiveKey(t *testing.T) {
	f, stderr := liveFactory(t, config.Profile{Name: "desk", Region: "ae", MerchantCode: "shop",
		TestSecretKey: "sk_test_aaaaaaaaaaaaaaaa", LiveSecretKey: "sk_bbbbbbbbbbbbbbbb"}, nil)
	tg, err := f.LiveTarget("disputes")
	if err != nil {
		t.Fatal(err)
	}
	if !tg.Live || tg.SecretKey != "sk_bbbbbbbbbbbbbbbb" {
		t.Errorf("target %v, want the live key", tg)
	}
	if got := stderr.String(); got != "using the live key of profile desk: disputes have no test mode\n" {
		t.Errorf("notice %q", got)
	}
	// The command's own target stays the test one.
	own, err := f.Target()
	if err != nil || own.Live {
		t.Errorf("own target %v, %v", own, err)
	}
	if c, err := f.LiveClient("disputes"); err != nil || c == nil {
		t.Errorf("LiveClient: %v", err)
	}
	if n := strings.Count(stderr.String(), "using the live key"); n != 1 {
		t.Errorf("the notice was said %d times", n)
	}
}

func TestLiveTargetWithLiveSaysNothing(t *testing.T) {
	f, stderr := liveFactory(t, config.Profile{Name: "desk", Region: "ae", MerchantCode: "shop",
		LiveSecretKey: "sk_bbbbbbbbbbbbbbbb"}, nil)
	f.Global.Live = true
	if tg, err := f.LiveTarget("disputes"); err != nil || !tg.Live {
		t.Fatalf("%v, %v", tg, err)
	}
	if stderr.Len() != 0 {
		t.Errorf("notice with --live: %q", stderr.String())
	}
}

func TestLiveTargetWithoutLiveKeyRefuses(t *testing.T) {
	f, _ := liveFactory(t, config.Profile{Name: "desk", Region: "ae", MerchantCode: "shop",
		TestSecretKey: "sk_test_aaaaaaaaaaaaaaaa"}, nil)
	_, err := f.LiveTarget("dispute webhooks")
	var h interface{ Hint() string }
	if ExitCode(err) != ExitUsage || err.Error() != "dispute webhooks have no test mode, and profile desk has no live key" ||
		!errors.As(err, &h) || !strings.Contains(h.Hint(), "bnpl login --profile desk --with-key") {
		t.Errorf("err = %v", err)
	}

	f, _ = liveFactory(t, config.Profile{Name: "desk", Region: "ae", MerchantCode: "shop",
		LiveSecretKey: "sk_bbbbbbbbbbbbbbbb"}, map[string]string{"BNPL_SECRET_KEY": "sk_test_cccccccccccccccc"})
	if _, err := f.LiveTarget("disputes"); ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "BNPL_SECRET_KEY holds a test key") {
		t.Errorf("env test key: %v", err)
	}
}
