// Package config keeps a merchant's profiles and secret keys in a YAML file
// of mode 0600, and decides for each command which account, key and address
// it talks to: a flag beats the environment, the environment beats the
// profile, and with nothing configured the embedded sandbox answers.
//
// The file is read and written through a viper instance made for the
// purpose, never viper's global one, so that tests and concurrent commands
// in one process cannot see each other's settings.
package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Keys of the file.
const (
	keyCurrentProfile = "current_profile"
	keyProfiles       = "profiles"
	keyRegion         = "region"
	keyMerchantCode   = "merchant_code"
	keyTestSecretKey  = "test_secret_key"
	keyLiveSecretKey  = "live_secret_key"
	keyBaseURL        = "base_url"
	keyLedger         = "ledger"
	keyTestKeyIn      = "test_secret_key_in"
	keyLiveKeyIn      = "live_secret_key_in"
)

// Config is the content of one config file. It holds no viper instance
// between calls: one is made to decode the file and another to encode it,
// because viper cannot delete a key and removing a profile must. A Config
// is not safe for concurrent changes; reading it from several goroutines
// is.
type Config struct {
	path     string
	current  string
	profiles map[string]storedProfile
	unknown  map[string]any // top-level keys this version does not know

	// forget lists keychain entries to delete once the file no longer
	// names them (a removed profile, a key moved to the file).
	forget []string
	// notices are lines for stderr that the last Save left.
	notices []string
}

// Empty is a config with no profiles, as a missing file at path gives.
func Empty(path string) *Config {
	return &Config{path: path, profiles: map[string]storedProfile{}, unknown: map[string]any{}}
}

// Path is the file this config was loaded from and is saved to.
func (c *Config) Path() string { return c.path }

// Profiles lists the profiles sorted by name.
func (c *Config) Profiles() []Profile {
	out := make([]Profile, 0, len(c.profiles))
	for _, sp := range c.profiles {
		out = append(out, sp.Profile)
	}
	slices.SortFunc(out, func(a, b Profile) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// profileNames lists the names sorted, for error messages.
func (c *Config) profileNames() []string {
	names := make([]string, 0, len(c.profiles))
	for name := range c.profiles {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Profile finds a profile by name. Names are matched without regard to case
// because the file's keys are (viper folds them to lower case).
func (c *Config) Profile(name string) (Profile, bool) {
	sp, ok := c.profiles[strings.ToLower(strings.TrimSpace(name))]
	return sp.Profile, ok
}

// SetProfile adds or replaces a profile after checking it. The region is
// folded to lower case and surrounding spaces are dropped; keys this version
// does not know, kept from the file, survive the replacement.
//
// A key given in TestSecretKey or LiveSecretKey goes into the file unless
// its slot says StorageKeychain (a key read from the keychain, which stays
// there); StoreKey is the way to put a new key in the keychain.
func (c *Config) SetProfile(p Profile) error {
	p.Name = strings.TrimSpace(p.Name)
	p.Region = strings.ToLower(strings.TrimSpace(p.Region))
	p.MerchantCode = strings.TrimSpace(p.MerchantCode)
	p.TestSecretKey = strings.TrimSpace(p.TestSecretKey)
	p.LiveSecretKey = strings.TrimSpace(p.LiveSecretKey)
	p.BaseURL = strings.TrimSpace(p.BaseURL)
	p.Ledger = strings.TrimSpace(p.Ledger)
	if err := validateProfile(p); err != nil {
		return err
	}
	for _, slot := range []struct {
		key string
		in  *Storage
	}{{p.TestSecretKey, &p.TestKeyIn}, {p.LiveSecretKey, &p.LiveKeyIn}} {
		if slot.key != "" && *slot.in != StorageKeychain {
			*slot.in = StorageFile
		}
		if slot.key == "" && *slot.in == StorageFile {
			*slot.in = StorageNone
		}
	}
	if c.profiles == nil {
		c.profiles = map[string]storedProfile{}
	}
	c.profiles[p.Name] = storedProfile{Profile: p, unknown: c.profiles[p.Name].unknown}
	return nil
}

func validateProfile(p Profile) error {
	if err := ValidateName(p.Name); err != nil {
		return err
	}
	if !ValidRegion(p.Region) {
		return &InvalidError{Field: keyRegion,
			Problem: fmt.Sprintf("profile %q: region %q is not ae or sa", p.Name, p.Region),
			Advice:  "use --region ae for the UAE and Kuwait, --region sa for KSA"}
	}
	if p.MerchantCode == "" {
		return &InvalidError{Field: keyMerchantCode,
			Problem: fmt.Sprintf("profile %q: merchant code is empty", p.Name),
			Advice:  "pass --merchant-code CODE (the code from the merchant dashboard)"}
	}
	if p.TestSecretKey != "" {
		if live, ok := KeyKind(p.TestSecretKey); !ok || live {
			return &InvalidError{Field: keyTestSecretKey,
				Problem: fmt.Sprintf("profile %q: the test key must start with sk_test_", p.Name),
				Advice:  "a key starting sk_ without test_ is a live key: store it as the live key"}
		}
	}
	if p.LiveSecretKey != "" {
		if live, ok := KeyKind(p.LiveSecretKey); !ok || !live {
			return &InvalidError{Field: keyLiveSecretKey,
				Problem: fmt.Sprintf("profile %q: the live key must start with sk_ and not sk_test_", p.Name),
				Advice:  "a key starting sk_test_ is a test key: store it as the test key"}
		}
	}
	if p.BaseURL != "" {
		if err := validateBaseURL(p.BaseURL, fmt.Sprintf("profile %q: base_url", p.Name)); err != nil {
			return err
		}
	}
	if p.Ledger != "" && !IsLedgerURL(p.Ledger) {
		return &InvalidError{Field: keyLedger,
			Problem: fmt.Sprintf("profile %q: ledger must be a postgres:// URL", p.Name),
			Advice:  "write it as postgres://user@host:5432/database?sslmode=verify-full, or remove it to keep the ledger on this machine"}
	}
	return nil
}

// ValidateName keeps names to what is easy to type as --profile and to put
// in BNPL_PROFILE, in lower case because the file's keys are folded to it.
func ValidateName(name string) error {
	ok := name != "" && len(name) <= 64
	for i := 0; ok && i < len(name); i++ {
		b := name[i]
		switch {
		case 'a' <= b && b <= 'z', '0' <= b && b <= '9':
		case (b == '-' || b == '_') && i > 0:
		default:
			ok = false
		}
	}
	if ok {
		return nil
	}
	return &InvalidError{Field: "name",
		Problem: fmt.Sprintf("profile name %q is not allowed", name),
		Advice:  "use lower-case letters, digits, - and _ (up to 64, starting with a letter or digit), e.g. prod or ae-test"}
}

// validateBaseURL asks for an absolute http(s) address without
// credentials, query or fragment, as the client does; whether a key may
// travel over plain http to that host is the client's decision. The address
// is quoted with any user and password removed.
func validateBaseURL(raw, what string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &InvalidError{Field: keyBaseURL,
			Problem: fmt.Sprintf("%s %q is not an http(s) address", what, secret.RedactURL(raw)),
			Advice:  "give an absolute address such as https://api.tabby.ai"}
	}
	if u.User != nil {
		return &InvalidError{Field: keyBaseURL,
			Problem: fmt.Sprintf("%s %q carries a user name or password: bnpl would store and print it", what, secret.RedactURL(raw)),
			Advice:  "give the address without user@ or user:password@; the secret key is the only credential the service takes"}
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return &InvalidError{Field: keyBaseURL,
			Problem: fmt.Sprintf("%s %q has a query or a fragment", what, secret.RedactURL(stripQuery(raw))),
			Advice:  "give the address alone, such as https://api.tabby.ai"}
	}
	return nil
}

// stripQuery drops what follows ? or #, which may hold a token, before an
// address is quoted.
func stripQuery(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i] + "?…"
	}
	return raw
}

// RemoveProfile deletes a profile. Removing the current one also clears
// current_profile, so that the file never names a profile it lacks.
func (c *Config) RemoveProfile(name string) error {
	key := strings.ToLower(strings.TrimSpace(name))
	sp, ok := c.profiles[key]
	if !ok {
		return &ProfileNotFoundError{Name: name, Known: c.profileNames()}
	}
	for _, live := range []bool{false, true} {
		if sp.KeyIn(live) == StorageKeychain {
			c.forget = append(c.forget, keychainAccount(c.path, key, live))
		}
	}
	delete(c.profiles, key)
	if c.current == key {
		c.current = ""
	}
	return nil
}

// Current is the default profile (the file's current_profile), "" if none.
func (c *Config) Current() string { return c.current }

// SetCurrent makes a profile the default; "" clears the choice.
func (c *Config) SetCurrent(name string) error {
	key := strings.ToLower(strings.TrimSpace(name))
	if key == "" {
		c.current = ""
		return nil
	}
	if _, ok := c.profiles[key]; !ok {
		return &ProfileNotFoundError{Name: name, Known: c.profileNames()}
	}
	c.current = key
	return nil
}
