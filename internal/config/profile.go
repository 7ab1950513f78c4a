package config

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Profile of a merchant account.
type Profile struct {
	Name         string
	Region       string // "ae" (UAE and Kuwait) or "sa" (KSA)
	MerchantCode string
	// TestSecretKey and LiveSecretKey are the keys held in the file. A key
	// in the OS keychain is not here: its slot's Storage says where it is,
	// and Config.Key reads it.
	TestSecretKey string
	LiveSecretKey string
	TestKeyIn     Storage // where the test key lives; StorageNone when there is none
	LiveKeyIn     Storage // where the live key lives
	BaseURL       string  // optional override
	// Ledger is the PostgreSQL ledger of bulk moves the profile's runs
	// share (postgres://…); "" keeps it in the state directory.
	Ledger string
}

// KeyIn is where the profile's test or live key lives.
func (p Profile) KeyIn(live bool) Storage {
	if live {
		return p.LiveKeyIn
	}
	return p.TestKeyIn
}

// String masks the keys, so that printing a profile by mistake leaks
// nothing.
func (p Profile) String() string {
	return fmt.Sprintf("profile %s: region=%s merchant_code=%s test_secret_key=%s (%s) live_secret_key=%s (%s) base_url=%s",
		p.Name, p.Region, p.MerchantCode, secret.MaskKey(p.TestSecretKey), p.TestKeyIn, secret.MaskKey(p.LiveSecretKey), p.LiveKeyIn, p.BaseURL)
}

// GoString masks the keys for %#v too.
func (p Profile) GoString() string { return p.String() }

// LogValue masks the keys when a profile is logged with slog.
func (p Profile) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("name", p.Name),
		slog.String(keyRegion, p.Region),
		slog.String(keyMerchantCode, p.MerchantCode),
		slog.String(keyTestSecretKey, secret.MaskKey(p.TestSecretKey)),
		slog.String(keyLiveSecretKey, secret.MaskKey(p.LiveSecretKey)),
		slog.String(keyTestKeyIn, string(p.TestKeyIn)),
		slog.String(keyLiveKeyIn, string(p.LiveKeyIn)),
		slog.String(keyBaseURL, p.BaseURL),
	)
}

// MarshalJSON writes the profile with the file's field names, masked keys
// and where each key lives, for `bnpl profiles list -o json`. A key in the
// keychain is masked only when it has been read (see Config.WithKeys).
func (p Profile) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name          string  `json:"name"`
		Region        string  `json:"region"`
		MerchantCode  string  `json:"merchant_code"`
		TestSecretKey string  `json:"test_secret_key,omitempty"`
		LiveSecretKey string  `json:"live_secret_key,omitempty"`
		TestKeyIn     Storage `json:"test_key_storage,omitempty"`
		LiveKeyIn     Storage `json:"live_key_storage,omitempty"`
		BaseURL       string  `json:"base_url,omitempty"`
	}{p.Name, p.Region, p.MerchantCode, secret.MaskKey(p.TestSecretKey), secret.MaskKey(p.LiveSecretKey), p.TestKeyIn, p.LiveKeyIn, p.BaseURL})
}

// storedProfile is a profile as the file holds it, with the keys this
// version does not know, so that saving keeps what a newer bnpl wrote.
type storedProfile struct {
	Profile
	unknown map[string]any
}
