package config

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Target is what a command talks to, resolved from flags, environment and
// profile.
type Target struct {
	Profile      string // "" for env-only or embedded
	Region       string
	MerchantCode string
	SecretKey    string // never print it; use Masked()
	Live         bool
	BaseURL      string
	Embedded     bool // the embedded sandbox (no profile configured and no BNPL_SECRET_KEY, or --sandbox)
	// SandboxKeys: no key was given, and BaseURL (BNPL_BASE_URL, on
	// loopback) is taken for a served bnpl sandbox, used with the built-in
	// merchant's keys as the embedded sandbox would be.
	SandboxKeys bool
	// KeyStorage is where the profile's key was read from (StorageFile or
	// StorageKeychain); StorageNone for a key from the environment or the
	// embedded sandbox, and for none at all.
	KeyStorage Storage
	// Sources tells, for `bnpl profiles show` and `bnpl doctor`, where each
	// field came from. Its keys are the file's field names ("profile",
	// "region", "merchant_code", "secret_key", "live", "base_url"); its
	// values are SourceFlag, SourceEnv, SourceProfile, SourceDefault or
	// SourceEmbedded. A field that is unset (a merchant code nobody gave)
	// has no entry.
	Sources map[string]string
}

// Merchant names the target's merchant for a person: "merchant
// ae-sandbox", or when only a key was given (the service knows the
// merchant by its key) "the merchant of key sk_****abcd".
func (t *Target) Merchant() string {
	if t.MerchantCode != "" {
		return "merchant " + t.MerchantCode
	}
	return "the merchant of key " + t.Masked()
}

// Masked is the key as it may be shown: "sk_test_****abcd".
func (t *Target) Masked() string { return secret.MaskKey(t.SecretKey) }

// String masks the key, so that printing a target by mistake leaks
// nothing.
func (t Target) String() string {
	name := t.Profile
	switch {
	case t.Embedded:
		name = "(embedded sandbox)"
	case name == "":
		name = "(environment)"
	}
	return fmt.Sprintf("target %s: region=%s merchant_code=%s secret_key=%s key_storage=%s live=%t base_url=%s",
		name, t.Region, t.MerchantCode, t.Masked(), t.KeyStorage, t.Live, secret.RedactURL(t.BaseURL))
}

// GoString masks the key for %#v too.
func (t Target) GoString() string { return t.String() }

// LogValue masks the key when a target is logged with slog.
func (t Target) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("profile", t.Profile),
		slog.String(keyRegion, t.Region),
		slog.String(keyMerchantCode, t.MerchantCode),
		slog.String("secret_key", t.Masked()),
		slog.Bool("live", t.Live),
		slog.String(keyBaseURL, secret.RedactURL(t.BaseURL)),
		slog.Bool("embedded", t.Embedded),
	)
}

// MarshalJSON writes the target with the key masked, for `-o json`.
func (t Target) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Profile      string            `json:"profile"`
		Region       string            `json:"region"`
		MerchantCode string            `json:"merchant_code"`
		SecretKey    string            `json:"secret_key"`
		KeyStorage   Storage           `json:"key_storage,omitempty"`
		Live         bool              `json:"live"`
		BaseURL      string            `json:"base_url"`
		Embedded     bool              `json:"embedded"`
		Sources      map[string]string `json:"sources"`
	}{t.Profile, t.Region, t.MerchantCode, t.Masked(), t.KeyStorage, t.Live, secret.RedactURL(t.BaseURL), t.Embedded, t.Sources})
}
