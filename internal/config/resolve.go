package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Environment variables read by Resolve.
const (
	EnvProfile      = "BNPL_PROFILE"
	EnvLive         = "BNPL_LIVE"
	EnvSecretKey    = "BNPL_SECRET_KEY"
	EnvMerchantCode = "BNPL_MERCHANT_CODE"
	EnvRegion       = "BNPL_REGION"
	EnvBaseURL      = "BNPL_BASE_URL"
)

// Where a Target's field came from, the values of Target.Sources.
const (
	SourceFlag     = "flag"
	SourceEnv      = "env"
	SourceProfile  = "profile"
	SourceDefault  = "default"
	SourceEmbedded = "embedded"
)

// defaultRegion is the region when nothing names one: the UAE base address.
const defaultRegion = "ae"

// Overrides are the global flags that bear on the target.
type Overrides struct {
	Profile string // --profile (flag)
	Live    bool   // --live
	Sandbox bool   // --sandbox
	// KeyOptional resolves a profile that lacks the key of the mode, or
	// whose keychain cannot give it, with no key instead of an error, for
	// commands that describe rather than send (`bnpl profiles show`).
	KeyOptional bool
}

// Resolve decides the target, field by field, flag > env > profile >
// default. getenv is injected so that tests never see the real
// environment; nil means an empty one. c may be nil for no config.
//
// The profile is the one named by --profile, else BNPL_PROFILE, else
// current_profile, else the only one there is. Several profiles with none
// chosen and no BNPL_SECRET_KEY is an error rather than a guess. With no
// profile and no BNPL_SECRET_KEY, or with --sandbox, the target is the
// embedded sandbox.
func Resolve(c *Config, o Overrides, getenv func(string) string) (*Target, error) {
	if c == nil {
		c = &Config{}
	}
	env := envReader(getenv)
	live, liveSource := resolveLive(o, env)
	envKey := env(EnvSecretKey)

	p, profileSource, err := pickProfile(c, o, env(EnvProfile))
	if err != nil {
		var choice *ProfileChoiceError
		if !(errors.As(err, &choice) && envKey != "") {
			return nil, err
		}
		// A key in the environment makes an env-only target: no profile
		// is needed, so none has to be chosen.
		profileSource = ""
	}
	found := profileSource != ""

	if o.Sandbox || (!found && envKey == "") {
		t, err := resolveEmbedded(p, found, live, liveSource, env)
		if err != nil || o.Sandbox || env(EnvBaseURL) == "" {
			return t, err
		}
		return servedSandbox(t, env(EnvBaseURL))
	}

	t := &Target{Live: live, Sources: map[string]string{}}
	if found {
		t.Profile = p.Name
		t.Sources["profile"] = profileSource
	}
	if err := t.resolveAccount(p, env); err != nil {
		return nil, err
	}
	if envKey != "" {
		liveSource, err = t.useEnvKey(envKey, liveSource)
	} else {
		err = t.useProfileKey(c, p, o.KeyOptional)
	}
	if err != nil {
		return nil, err
	}
	t.Sources["live"] = liveSource
	if err := t.resolveBaseURL(p, env); err != nil {
		return nil, err
	}
	return t, nil
}

// envReader reads the environment through getenv (nil: an empty one),
// values trimmed.
func envReader(getenv func(string) string) func(string) string {
	return func(name string) string {
		if getenv == nil {
			return ""
		}
		return strings.TrimSpace(getenv(name))
	}
}

// resolveLive is the mode asked for and where the asking came from:
// --live, else BNPL_LIVE, else test.
func resolveLive(o Overrides, env func(string) string) (live bool, source string) {
	switch {
	case o.Live:
		return true, SourceFlag
	case truthy(env(EnvLive)):
		return true, SourceEnv
	}
	return false, SourceDefault
}

// resolveAccount sets the region (BNPL_REGION, else the profile's, else
// the default) and the merchant code (BNPL_MERCHANT_CODE, else the
// profile's).
func (t *Target) resolveAccount(p Profile, env func(string) string) error {
	t.Region, t.Sources[keyRegion] = defaultRegion, SourceDefault
	if r := env(EnvRegion); r != "" {
		t.Region, t.Sources[keyRegion] = strings.ToLower(r), SourceEnv
	} else if p.Region != "" {
		t.Region, t.Sources[keyRegion] = p.Region, SourceProfile
	}
	if !ValidRegion(t.Region) {
		return regionError(t.Region, t.Sources[keyRegion], p.Name)
	}
	if m := env(EnvMerchantCode); m != "" {
		t.MerchantCode, t.Sources[keyMerchantCode] = m, SourceEnv
	} else if p.MerchantCode != "" {
		t.MerchantCode, t.Sources[keyMerchantCode] = p.MerchantCode, SourceProfile
	}
	return nil
}

// useEnvKey takes BNPL_SECRET_KEY as the target's key. The key's own
// prefix is the truth about which mode a request runs in, so Live follows
// it; a test key where live was asked for is refused. It answers where
// the mode came from.
func (t *Target) useEnvKey(envKey, liveSource string) (string, error) {
	keyLive, ok := KeyKind(envKey)
	if !ok {
		return "", &InvalidError{Field: "secret_key",
			Problem: EnvSecretKey + " is not a secret key: keys start with sk_test_ (test) or sk_ (live)",
			Advice:  "set " + EnvSecretKey + " to the secret key from the merchant dashboard, or unset it to use the profile's key"}
	}
	if t.Live && !keyLive {
		return "", liveNeedsLiveKey(liveSource, EnvSecretKey+" holds a test key (sk_test_...): set it to a live key, or drop "+liveSwitch(liveSource))
	}
	t.Live = keyLive
	if liveSource == SourceDefault {
		liveSource = SourceEnv
	}
	t.SecretKey, t.Sources["secret_key"] = envKey, SourceEnv
	return liveSource, nil
}

// useProfileKey takes the profile's key of the target's mode, from the
// file or the keychain (read only here: the environment's key wins). With
// keyOptional a missing or unreadable key leaves the target without one.
func (t *Target) useProfileKey(c *Config, p Profile, keyOptional bool) error {
	field := keyTestSecretKey
	if t.Live {
		field = keyLiveSecretKey
	}
	key, in, err := c.Key(p, t.Live)
	switch {
	case err != nil && !keyOptional:
		return err
	case key == "" && !keyOptional:
		return &MissingKeyError{Profile: p.Name, Live: t.Live}
	case key == "":
		// Described without a key: what would be used is shown as
		// missing.
	default:
		t.KeyStorage = in
	}
	if keyLive, ok := KeyKind(key); key != "" && (!ok || keyLive != t.Live) {
		want := "sk_test_"
		if t.Live {
			want = "sk_ (not sk_test_)"
		}
		return &InvalidError{Field: field,
			Problem: fmt.Sprintf("profile %q: %s does not start with %s", p.Name, field, want),
			Advice:  fmt.Sprintf("store the key again with `bnpl login --profile %s --with-key`", p.Name)}
	}
	if key != "" {
		t.SecretKey, t.Sources["secret_key"] = key, SourceProfile
	}
	return nil
}

// resolveBaseURL sets the base URL (BNPL_BASE_URL, else the profile's,
// else the region's) and, when nobody named a region but the base URL is
// a regional one, the region that address says the key is used in.
func (t *Target) resolveBaseURL(p Profile, env func(string) string) error {
	switch {
	case env(EnvBaseURL) != "":
		t.BaseURL, t.Sources[keyBaseURL] = env(EnvBaseURL), SourceEnv
		if err := validateBaseURL(t.BaseURL, EnvBaseURL); err != nil {
			return err
		}
	case p.BaseURL != "":
		t.BaseURL, t.Sources[keyBaseURL] = p.BaseURL, SourceProfile
		if err := validateBaseURL(t.BaseURL, fmt.Sprintf("profile %q: base_url", p.Name)); err != nil {
			return err
		}
	default:
		t.BaseURL, _ = RegionBaseURL(t.Region)
		t.Sources[keyBaseURL] = SourceDefault
	}
	if t.Sources[keyRegion] == SourceDefault {
		if r, ok := regionOfBaseURL(t.BaseURL); ok {
			t.Region, t.Sources[keyRegion] = r, t.Sources[keyBaseURL]
		}
	}
	return nil
}

// regionOfBaseURL knows the service's own regional addresses.
func regionOfBaseURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	for _, r := range []string{"ae", "sa"} {
		if base, _ := RegionBaseURL(r); base != "" {
			if bu, err := url.Parse(base); err == nil && strings.EqualFold(bu.Hostname(), u.Hostname()) {
				return r, true
			}
		}
	}
	return "", false
}

// pickProfile finds the profile to use and says how it was chosen: a
// source of "" means none. A stale current_profile is ignored under
// --sandbox, which uses the sandbox whatever the profiles say; a name given
// on the command line or in the environment is never ignored.
func pickProfile(c *Config, o Overrides, envName string) (Profile, string, error) {
	name, source := "", ""
	switch {
	case strings.TrimSpace(o.Profile) != "":
		name, source = strings.TrimSpace(o.Profile), SourceFlag
	case envName != "":
		name, source = envName, SourceEnv
	case c.current != "":
		name, source = c.current, SourceProfile
	}
	if name != "" {
		if p, ok := c.Profile(name); ok {
			if source == SourceProfile {
				source = SourceDefault // chosen by `bnpl profiles use`, not named now
			}
			return p, source, nil
		}
		if source == SourceProfile && o.Sandbox {
			return Profile{}, "", nil
		}
		return Profile{}, "", &ProfileNotFoundError{Name: name, Source: source, Known: c.profileNames()}
	}
	switch len(c.profiles) {
	case 0:
		return Profile{}, "", nil
	case 1:
		for _, sp := range c.profiles {
			return sp.Profile, SourceDefault, nil
		}
	}
	if o.Sandbox {
		return Profile{}, "", nil
	}
	return Profile{}, "", &ProfileChoiceError{Known: c.profileNames()}
}

// resolveEmbedded makes the embedded sandbox's target. The merchant is,
// in order: the one whose sandbox key is in BNPL_SECRET_KEY, a built-in
// named by BNPL_MERCHANT_CODE, the built-in of BNPL_REGION, the profile's
// merchant when it is a built-in, else ae-sandbox. Real merchant codes,
// keys and base URLs are ignored: the sandbox knows only its own.
func resolveEmbedded(p Profile, found bool, live bool, liveSource string, env func(string) string) (*Target, error) {
	m, _ := embeddedMerchant("ae-sandbox")
	source := SourceEmbedded
	keySource := SourceEmbedded
	if km, keyLive, ok := embeddedMerchantByKey(env(EnvSecretKey)); ok {
		if live && !keyLive {
			return nil, liveNeedsLiveKey(liveSource, EnvSecretKey+" holds a sandbox test key: use "+km.LiveKey+", or drop "+liveSwitch(liveSource))
		}
		m, live, source, keySource = km, keyLive, SourceEnv, SourceEnv
		if liveSource == SourceDefault {
			liveSource = SourceEnv
		}
	} else if em, ok := embeddedMerchant(env(EnvMerchantCode)); ok {
		m, source = em, SourceEnv
	} else if r := strings.ToLower(env(EnvRegion)); r != "" {
		rm, ok := embeddedRegionDefault(r)
		if !ok {
			return nil, regionError(r, SourceEnv, "")
		}
		m, source = rm, SourceEnv
	} else if pm, ok := embeddedMerchant(p.MerchantCode); found && ok {
		m, source = pm, SourceProfile
	}
	t := &Target{
		Region:       m.Region,
		MerchantCode: m.Code,
		SecretKey:    m.TestKey,
		Live:         live,
		Embedded:     true,
		Sources: map[string]string{
			keyRegion:       source,
			keyMerchantCode: source,
			"secret_key":    keySource,
			"live":          liveSource,
			keyBaseURL:      SourceEmbedded,
		},
	}
	if live {
		t.SecretKey = m.LiveKey
	}
	t.BaseURL, _ = EmbeddedBaseURL(m.Region)
	return t, nil
}

// servedSandbox points the embedded default's target t at the base URL
// given in BNPL_BASE_URL with no key: on loopback, a served bnpl sandbox
// (bnpl sandbox serve), which knows the built-in merchants' keys, so every
// command, not only the sandbox verbs, talks to the sandbox named. Any
// other address needs a key: sending a sandbox key there would only be
// refused, and ignoring the address would talk to another state.
func servedSandbox(t *Target, base string) (*Target, error) {
	if err := validateBaseURL(base, EnvBaseURL); err != nil {
		return nil, err
	}
	u, _ := url.Parse(base)
	if !loopbackHost(u.Hostname()) {
		return nil, &InvalidError{Field: keyBaseURL,
			Problem: fmt.Sprintf("%s is %s, but no key is set", EnvBaseURL, secret.RedactURL(base)),
			Advice:  "set " + EnvSecretKey + " (or log in with bnpl login) for that service; a bnpl sandbox there takes its built-in key (" + EnvSecretKey + "=sk_test_ae_sandbox), and one on this machine (http://127.0.0.1:PORT) needs none"}
	}
	t.BaseURL, t.Embedded, t.SandboxKeys = base, false, true
	t.Sources[keyBaseURL] = SourceEnv
	return t, nil
}

// loopbackHost tells an address that may be this machine: the client
// then sends the key there only through netguard.DialLoopback.
func loopbackHost(host string) bool { return netguard.LoopbackCandidate(host) }

func truthy(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes":
		return true
	}
	return false
}

// liveSwitch names what asked for live mode, for messages.
func liveSwitch(liveSource string) string {
	if liveSource == SourceEnv {
		return EnvLive + "=1"
	}
	return "--live"
}

func liveNeedsLiveKey(liveSource, advice string) error {
	return &InvalidError{Field: "secret_key",
		Problem: liveSwitch(liveSource) + " needs a live key (sk_...)",
		Advice:  advice}
}

func regionError(region, source, profile string) error {
	from := map[string]string{SourceEnv: " (from " + EnvRegion + ")", SourceProfile: fmt.Sprintf(" (profile %q)", profile)}[source]
	return &InvalidError{Field: keyRegion,
		Problem: fmt.Sprintf("region %q%s is not ae or sa", region, from),
		Advice:  "use ae for the UAE and Kuwait, sa for KSA"}
}
