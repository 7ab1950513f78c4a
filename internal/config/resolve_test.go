package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/config/configtest"
)

// Two profiles whose every field differs, so the tests can tell which one a
// value came from.
var (
	profAE = Profile{Name: "main", Region: "ae", MerchantCode: "main_code", TestSecretKey: profTestKey,
		LiveSecretKey: profLiveKey, BaseURL: "https://proxy.example.com"}
	profSA = Profile{Name: "ksa", Region: "sa", MerchantCode: "ksa_code", TestSecretKey: "sk_test_PROFTESTMIDDLE_0005"}
)

func TestResolvePrecedence(t *testing.T) {
	cases := []struct {
		name     string
		profiles []Profile
		current  string
		o        Overrides
		env      map[string]string
		field    string // Target field checked, by its Sources key
		want     string
		source   string
	}{
		// Which profile.
		{"profile flag beats env and current", []Profile{profAE, profSA}, "main", Overrides{Profile: "ksa"},
			map[string]string{EnvProfile: "main"}, "profile", "ksa", SourceFlag},
		{"profile env beats current", []Profile{profAE, profSA}, "main", Overrides{},
			map[string]string{EnvProfile: "ksa"}, "profile", "ksa", SourceEnv},
		{"profile current", []Profile{profAE, profSA}, "ksa", Overrides{}, nil, "profile", "ksa", SourceDefault},
		{"profile the only one", []Profile{profSA}, "", Overrides{}, nil, "profile", "ksa", SourceDefault},

		// Region.
		{"region env beats profile", []Profile{profSA}, "", Overrides{}, map[string]string{EnvRegion: "AE"}, "region", "ae", SourceEnv},
		{"region profile", []Profile{profSA}, "", Overrides{}, nil, "region", "sa", SourceProfile},
		{"region default", nil, "", Overrides{}, map[string]string{EnvSecretKey: envTestKey}, "region", "ae", SourceDefault},

		// Merchant code.
		{"merchant env beats profile", []Profile{profAE}, "", Overrides{}, map[string]string{EnvMerchantCode: "env_code"}, "merchant_code", "env_code", SourceEnv},
		{"merchant profile", []Profile{profAE}, "", Overrides{}, nil, "merchant_code", "main_code", SourceProfile},
		{"merchant unset", nil, "", Overrides{}, map[string]string{EnvSecretKey: envTestKey}, "merchant_code", "", ""},

		// Key.
		{"key env beats profile", []Profile{profAE}, "", Overrides{}, map[string]string{EnvSecretKey: envTestKey}, "secret_key", envTestKey, SourceEnv},
		{"key profile test", []Profile{profAE}, "", Overrides{}, nil, "secret_key", profTestKey, SourceProfile},
		{"key profile live by flag", []Profile{profAE}, "", Overrides{Live: true}, nil, "secret_key", profLiveKey, SourceProfile},
		{"key profile live by env", []Profile{profAE}, "", Overrides{}, map[string]string{EnvLive: "yes"}, "secret_key", profLiveKey, SourceProfile},

		// Live.
		{"live flag", []Profile{profAE}, "", Overrides{Live: true}, map[string]string{EnvLive: "0"}, "live", "true", SourceFlag},
		{"live env 1", []Profile{profAE}, "", Overrides{}, map[string]string{EnvLive: "1"}, "live", "true", SourceEnv},
		{"live env TRUE", []Profile{profAE}, "", Overrides{}, map[string]string{EnvLive: "TRUE"}, "live", "true", SourceEnv},
		{"live env other", []Profile{profAE}, "", Overrides{}, map[string]string{EnvLive: "no"}, "live", "false", SourceDefault},
		{"live default", []Profile{profAE}, "", Overrides{}, nil, "live", "false", SourceDefault},
		{"live follows env key", []Profile{profAE}, "", Overrides{}, map[string]string{EnvSecretKey: envLiveKey}, "live", "true", SourceEnv},

		// Base URL.
		{"base env beats profile", []Profile{profAE}, "", Overrides{}, map[string]string{EnvBaseURL: "http://127.0.0.1:9999"}, "base_url", "http://127.0.0.1:9999", SourceEnv},
		{"base profile", []Profile{profAE}, "", Overrides{}, nil, "base_url", "https://proxy.example.com", SourceProfile},
		{"base default from profile region", []Profile{profSA}, "", Overrides{}, nil, "base_url", "https://api.tabby.sa", SourceDefault},
		{"base default follows env region", []Profile{profSA}, "", Overrides{}, map[string]string{EnvRegion: "ae"}, "base_url", "https://api.tabby.ai", SourceDefault},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newConfig(t, tc.profiles...)
			if tc.current != "" {
				if err := c.SetCurrent(tc.current); err != nil {
					t.Fatal(err)
				}
			}
			tg, err := Resolve(c, tc.o, envOf(tc.env))
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if tg.Embedded {
				t.Fatal("unexpected embedded target")
			}
			got := map[string]string{
				"profile":       tg.Profile,
				"region":        tg.Region,
				"merchant_code": tg.MerchantCode,
				"secret_key":    tg.SecretKey,
				"live":          fmt.Sprint(tg.Live),
				"base_url":      tg.BaseURL,
			}[tc.field]
			if got != tc.want {
				t.Errorf("%s = %q, want %q", tc.field, secretSafe(got), secretSafe(tc.want))
			}
			if src := tg.Sources[tc.field]; src != tc.source {
				t.Errorf("Sources[%s] = %q, want %q (all: %v)", tc.field, src, tc.source, tg.Sources)
			}
		})
	}
}

// secretSafe keeps test failure output free of the test keys' middles, so
// the leak assertions elsewhere stay meaningful for logs too.
func secretSafe(s string) string {
	if _, ok := KeyKind(s); ok {
		return fmt.Sprintf("key ending %q", s[len(s)-4:])
	}
	return s
}

func TestResolveEnvOnly(t *testing.T) {
	env := map[string]string{EnvSecretKey: envLiveKey, EnvRegion: "sa", EnvMerchantCode: "m1"}
	for _, c := range []*Config{nil, newConfig(t), newConfig(t, profAE, profSA)} {
		tg, err := Resolve(c, Overrides{}, envOf(env))
		if err != nil {
			t.Fatal(err)
		}
		want := Target{Region: "sa", MerchantCode: "m1", SecretKey: envLiveKey, Live: true, BaseURL: "https://api.tabby.sa",
			Sources: map[string]string{"region": "env", "merchant_code": "env", "secret_key": "env", "live": "env", "base_url": "default"}}
		if !reflect.DeepEqual(*tg, want) {
			t.Errorf("env-only target:\n got %v %v\nwant %v %v", tg, tg.Sources, want, want.Sources)
		}
	}
}

func TestResolveFullFromProfile(t *testing.T) {
	c := newConfig(t, profAE)
	tg, err := Resolve(c, Overrides{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Target{Profile: "main", Region: "ae", MerchantCode: "main_code", SecretKey: profTestKey, KeyStorage: StorageFile, BaseURL: "https://proxy.example.com",
		Sources: map[string]string{"profile": "default", "region": "profile", "merchant_code": "profile", "secret_key": "profile", "live": "default", "base_url": "profile"}}
	if !reflect.DeepEqual(*tg, want) {
		t.Errorf("got %v %v\nwant %v %v", tg, tg.Sources, want, want.Sources)
	}
	if tg.Masked() != "sk_test_****0001" {
		t.Errorf("Masked = %q", tg.Masked())
	}
}

func TestResolveEmbedded(t *testing.T) {
	builtin := Profile{Name: "kw", Region: "ae", MerchantCode: "kw-sandbox", TestSecretKey: "sk_test_kw_sandbox"}
	cases := []struct {
		name     string
		profiles []Profile
		o        Overrides
		env      map[string]string
		want     Target
	}{
		{"fresh machine", nil, Overrides{}, nil,
			Target{Region: "ae", MerchantCode: "ae-sandbox", SecretKey: "sk_test_ae_sandbox", BaseURL: "http://127.0.0.1:8700"}},
		{"fresh machine live", nil, Overrides{Live: true}, nil,
			Target{Region: "ae", MerchantCode: "ae-sandbox", SecretKey: "sk_ae_sandbox", Live: true, BaseURL: "http://127.0.0.1:8700"}},
		{"fresh machine, BNPL_LIVE", nil, Overrides{}, map[string]string{EnvLive: "true"},
			Target{Region: "ae", MerchantCode: "ae-sandbox", SecretKey: "sk_ae_sandbox", Live: true, BaseURL: "http://127.0.0.1:8700"}},
		{"region sa", nil, Overrides{}, map[string]string{EnvRegion: "sa"},
			Target{Region: "sa", MerchantCode: "sa-sandbox", SecretKey: "sk_test_sa_sandbox", BaseURL: "http://127.0.0.1:8701"}},
		{"region ae explicitly", nil, Overrides{}, map[string]string{EnvRegion: "ae"},
			Target{Region: "ae", MerchantCode: "ae-sandbox", SecretKey: "sk_test_ae_sandbox", BaseURL: "http://127.0.0.1:8700"}},
		{"env merchant built-in", nil, Overrides{}, map[string]string{EnvMerchantCode: "kw-sandbox", EnvRegion: "sa"},
			Target{Region: "ae", MerchantCode: "kw-sandbox", SecretKey: "sk_test_kw_sandbox", BaseURL: "http://127.0.0.1:8700"}},
		{"env merchant real is ignored", nil, Overrides{}, map[string]string{EnvMerchantCode: "real_shop"},
			Target{Region: "ae", MerchantCode: "ae-sandbox", SecretKey: "sk_test_ae_sandbox", BaseURL: "http://127.0.0.1:8700"}},
		{"--sandbox beats a real profile", []Profile{profAE}, Overrides{Sandbox: true}, nil,
			Target{Region: "ae", MerchantCode: "ae-sandbox", SecretKey: "sk_test_ae_sandbox", BaseURL: "http://127.0.0.1:8700"}},
		{"--sandbox beats an env key", []Profile{profSA}, Overrides{Sandbox: true, Live: true}, map[string]string{EnvSecretKey: envTestKey},
			Target{Region: "ae", MerchantCode: "ae-sandbox", SecretKey: "sk_ae_sandbox", Live: true, BaseURL: "http://127.0.0.1:8700"}},
		{"--sandbox with a built-in profile", []Profile{builtin}, Overrides{Sandbox: true}, nil,
			Target{Region: "ae", MerchantCode: "kw-sandbox", SecretKey: "sk_test_kw_sandbox", BaseURL: "http://127.0.0.1:8700"}},
		{"--sandbox with several profiles, none chosen", []Profile{profAE, profSA}, Overrides{Sandbox: true}, nil,
			Target{Region: "ae", MerchantCode: "ae-sandbox", SecretKey: "sk_test_ae_sandbox", BaseURL: "http://127.0.0.1:8700"}},
		{"--sandbox with a sandbox key in env", nil, Overrides{Sandbox: true}, map[string]string{EnvSecretKey: "sk_sa_sandbox"},
			Target{Region: "sa", MerchantCode: "sa-sandbox", SecretKey: "sk_sa_sandbox", Live: true, BaseURL: "http://127.0.0.1:8701"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := Resolve(newConfig(t, tc.profiles...), tc.o, envOf(tc.env))
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if !tg.Embedded {
				t.Fatalf("want the embedded sandbox, got %v", tg)
			}
			got := *tg
			got.Embedded, got.Sources = false, nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
			if tg.Profile != "" {
				t.Errorf("embedded target names profile %q", tg.Profile)
			}
			if tg.Sources["base_url"] != SourceEmbedded || tg.Sources["live"] == "" {
				t.Errorf("sources = %v", tg.Sources)
			}
		})
	}
}

func TestResolveEmbeddedSources(t *testing.T) {
	tg, err := Resolve(nil, Overrides{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"region": "embedded", "merchant_code": "embedded", "secret_key": "embedded", "live": "default", "base_url": "embedded"}
	if !reflect.DeepEqual(tg.Sources, want) {
		t.Errorf("sources = %v, want %v", tg.Sources, want)
	}
}

func TestResolveErrors(t *testing.T) {
	noLive := Profile{Name: "nolive", Region: "ae", MerchantCode: "m", TestSecretKey: profTestKey}
	noTest := Profile{Name: "notest", Region: "sa", MerchantCode: "m", LiveSecretKey: profLiveKey}
	cases := []struct {
		name     string
		profiles []Profile
		current  string
		o        Overrides
		env      map[string]string
		check    func(t *testing.T, err error)
	}{
		{"unknown profile flag", []Profile{profAE, profSA}, "", Overrides{Profile: "nope"}, nil, wantNotFound("nope", "ksa, main")},
		{"unknown profile env", []Profile{profAE}, "", Overrides{}, map[string]string{EnvProfile: "nope"}, wantNotFound("nope", "main")},
		{"unknown profile flag, none configured", nil, "", Overrides{Profile: "nope"}, nil, wantNotFound("nope", "no profiles")},
		{"unknown profile flag with --sandbox", []Profile{profAE}, "", Overrides{Profile: "nope", Sandbox: true}, nil, wantNotFound("nope", "main")},
		{"stale current_profile", []Profile{profAE, profSA}, "gone", Overrides{}, nil, wantNotFound("gone", "ksa, main")},
		{"several profiles, none chosen", []Profile{profAE, profSA}, "", Overrides{}, nil, wantType[*ProfileChoiceError]("ksa, main")},
		{"test env key with --live", []Profile{profAE}, "", Overrides{Live: true}, map[string]string{EnvSecretKey: envTestKey},
			wantMessage("--live needs a live key (sk_...)")},
		{"test env key with BNPL_LIVE", nil, "", Overrides{}, map[string]string{EnvSecretKey: envTestKey, EnvLive: "1"},
			wantMessage("BNPL_LIVE=1 needs a live key (sk_...)")},
		{"sandbox test key with --live --sandbox", nil, "", Overrides{Live: true, Sandbox: true}, map[string]string{EnvSecretKey: "sk_test_sa_sandbox"},
			wantMessage("--live needs a live key (sk_...)")},
		{"env key not a key", []Profile{profAE}, "", Overrides{}, map[string]string{EnvSecretKey: "pk_test_ENVTESTMIDDLE_0003"},
			wantMessage("BNPL_SECRET_KEY is not a secret key")},
		{"live without a live key", []Profile{noLive}, "", Overrides{Live: true}, nil,
			wantMissingKey("nolive", true)},
		{"test without a test key", []Profile{noTest}, "", Overrides{}, nil,
			wantMissingKey("notest", false)},
		{"bad env region", []Profile{profAE}, "", Overrides{}, map[string]string{EnvRegion: "kw"}, wantMessage(`region "kw" (from BNPL_REGION) is not ae or sa`)},
		{"bad env region, embedded", nil, "", Overrides{}, map[string]string{EnvRegion: "us"}, wantMessage(`region "us" (from BNPL_REGION)`)},
		{"bad env base url", []Profile{profAE}, "", Overrides{}, map[string]string{EnvBaseURL: "api.example.com"}, wantMessage("BNPL_BASE_URL")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newConfig(t, tc.profiles...)
			c.current = tc.current // may name a profile that is gone, as a hand edit can
			tg, err := Resolve(c, tc.o, envOf(tc.env))
			if err == nil {
				t.Fatalf("want an error, got %v", tg)
			}
			assertUsageError(t, err)
			tc.check(t, err)
		})
	}
}

func TestResolveHandEditedKeys(t *testing.T) {
	// A file edited by hand can hold keys in the wrong slots; SetProfile
	// would refuse them, so Resolve must check too.
	path := t.TempDir() + "/config.yaml"
	configtest.WriteFile(t, path, "profiles:\n  x:\n    region: ae\n    merchant_code: m\n    test_secret_key: "+profLiveKey+"\n    live_secret_key: "+profTestKey+"\n    base_url: not-a-url\n", 0o600)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Overrides{{}, {Live: true}} {
		_, err := Resolve(c, o, nil)
		assertUsageError(t, err)
		var ie *InvalidError
		if !errors.As(err, &ie) || !strings.Contains(ie.Field, "secret_key") {
			t.Errorf("live=%v: want an InvalidError on a key, got %v", o.Live, err)
		}
	}
	_, err = Resolve(c, Overrides{}, envOf(map[string]string{EnvSecretKey: envTestKey}))
	assertUsageError(t, err)
	if !strings.Contains(fmt.Sprint(err), "base_url") {
		t.Errorf("want the profile's bad base_url refused, got %v", err)
	}

	configtest.WriteFile(t, path, "profiles:\n  x:\n    region: qq\n    merchant_code: m\n    test_secret_key: "+profTestKey+"\n", 0o600)
	if c, err = Load(path); err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(c, Overrides{}, nil)
	assertUsageError(t, err)
	if !strings.Contains(fmt.Sprint(err), `region "qq" (profile "x")`) {
		t.Errorf("want the profile's bad region named, got %v", err)
	}
}

func TestResolveStaleCurrentWithSandbox(t *testing.T) {
	c := newConfig(t, profAE, profSA)
	c.current = "gone"
	tg, err := Resolve(c, Overrides{Sandbox: true}, nil)
	if err != nil || !tg.Embedded {
		t.Fatalf("--sandbox must not care about a stale current_profile: %v, %v", tg, err)
	}
}

func TestResolveHintForMissingLiveKey(t *testing.T) {
	c := newConfig(t, Profile{Name: "shop", Region: "ae", MerchantCode: "m", TestSecretKey: profTestKey})
	_, err := Resolve(c, Overrides{Live: true}, nil)
	var mk *MissingKeyError
	if !errors.As(err, &mk) {
		t.Fatalf("want a MissingKeyError, got %v", err)
	}
	if !strings.Contains(mk.Hint(), "bnpl login --profile shop --with-key") {
		t.Errorf("hint %q lacks the login command", mk.Hint())
	}
}

func TestNoKeyInErrors(t *testing.T) {
	// Every error path that sees a key, gathered in one place: none may
	// show it.
	var errs []error
	collect := func(_ any, err error) { errs = append(errs, err) }

	c := newConfig(t, Profile{Name: "a", Region: "ae", MerchantCode: "m", TestSecretKey: profTestKey})
	errs = append(errs,
		c.SetProfile(Profile{Name: "a", Region: "ae", MerchantCode: "m", TestSecretKey: profLiveKey}),
		c.SetProfile(Profile{Name: "a", Region: "ae", MerchantCode: "m", LiveSecretKey: profTestKey}),
		c.SetProfile(Profile{Name: "a", Region: "xx", MerchantCode: "m", TestSecretKey: profTestKey, LiveSecretKey: profLiveKey}),
		c.SetProfile(Profile{Name: "a", Region: "ae", MerchantCode: "m", TestSecretKey: "xsk_test_PROFTESTMIDDLE"}),
	)
	collect(Resolve(c, Overrides{Live: true}, envOf(map[string]string{EnvSecretKey: envTestKey})))
	collect(Resolve(c, Overrides{}, envOf(map[string]string{EnvSecretKey: "ENVTESTMIDDLE"})))
	collect(Resolve(c, Overrides{}, envOf(map[string]string{EnvSecretKey: "sk_test_ENVTESTMIDDLE with space"})))
	collect(Resolve(c, Overrides{}, envOf(map[string]string{EnvBaseURL: "sk_ENVLIVEMIDDLE"})))
	collect(Resolve(c, Overrides{}, envOf(map[string]string{EnvRegion: "sk_ENVLIVEMIDDLE"})))
	collect(nil, c.SetProfile(Profile{Name: "a", Region: "ae", MerchantCode: "m", BaseURL: "ftp://sk_test_PROFTESTMIDDLE_0001"}))
	collect(Resolve(c, Overrides{Live: true}, nil))
	collect(ReadKey(strings.NewReader("pk_STDINMIDDLE\n")))
	collect(ReadKey(strings.NewReader("sk_test_STDINMIDDLE and more\n")))
	collect(Resolve(newConfig(t), Overrides{Profile: "sk_test_PROFTESTMIDDLE_0001"}, nil))

	path := t.TempDir() + "/config.yaml"
	configtest.WriteFile(t, path, "profiles:\n  a:\n    test_secret_key: \"sk_test_FILEKEYMIDDLE_1\n", 0o600)
	collect(Load(path))
	configtest.WriteFile(t, path, "profiles:\n  a:\n    test_secret_key: sk_test_FILEKEYMIDDLE_1: x\n", 0o600)
	collect(Load(path))

	for i, err := range errs {
		if err == nil {
			t.Errorf("case %d: want an error", i)
			continue
		}
		assertNoKey(t, fmt.Sprintf("error %d", i), err.Error())
		var hinted interface{ Hint() string }
		if errors.As(err, &hinted) {
			assertNoKey(t, fmt.Sprintf("hint %d", i), hinted.Hint())
		}
	}
}

func TestTargetRenderingMasksKey(t *testing.T) {
	tg, err := Resolve(newConfig(t, profAE), Overrides{Live: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(tg)
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("resolved", "target", tg)
	for _, s := range []string{fmt.Sprint(tg), fmt.Sprint(*tg), fmt.Sprintf("%v %+v %#v %s", tg, *tg, *tg, tg), string(js), logged.String()} {
		assertNoKey(t, "rendered target", s)
	}
	if !strings.Contains(string(js), `"secret_key":"sk_****0002"`) {
		t.Errorf("JSON does not show the masked key: %s", js)
	}
}

func wantNotFound(name, listed string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var nf *ProfileNotFoundError
		if !errors.As(err, &nf) || nf.Name != name {
			t.Fatalf("want a ProfileNotFoundError for %q, got %T %v", name, err, err)
		}
		if !strings.Contains(err.Error(), listed) {
			t.Errorf("error %q does not list %q", err, listed)
		}
	}
}

func wantType[E error](listed string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var target E
		if !errors.As(err, &target) {
			t.Fatalf("want %T, got %T %v", target, err, err)
		}
		if !strings.Contains(err.Error(), listed) {
			t.Errorf("error %q does not list %q", err, listed)
		}
	}
}

func wantMessage(part string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
}

func wantMissingKey(profile string, live bool) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var mk *MissingKeyError
		if !errors.As(err, &mk) || mk.Profile != profile || mk.Live != live {
			t.Fatalf("want a MissingKeyError for %s (live %v), got %v", profile, live, err)
		}
		if want := "bnpl login --profile " + profile + " --with-key"; !strings.Contains(mk.Hint(), want) {
			t.Errorf("hint %q lacks %q", mk.Hint(), want)
		}
	}
}
