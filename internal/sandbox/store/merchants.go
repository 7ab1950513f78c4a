package store

import (
	"fmt"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/userfile"
	"go.yaml.in/yaml/v3"
)

// Merchant is a store the sandbox knows, with the keys that act for it.
type Merchant struct {
	Code          string `json:"code" yaml:"code"`
	Region        string `json:"region" yaml:"region"`
	Currency      string `json:"currency" yaml:"currency"`
	Name          string `json:"name" yaml:"name"`
	TestKey       string `json:"test_key" yaml:"test_key"`
	LiveKey       string `json:"live_key" yaml:"live_key"`
	TokensEnabled bool   `json:"tokens_enabled" yaml:"tokens_enabled"`
}

// BuiltinMerchants are the merchants every sandbox has unless told otherwise.
// Their keys are public by design: they move no real money.
func BuiltinMerchants() []Merchant {
	return []Merchant{
		{Code: "ae-sandbox", Region: "ae", Currency: "AED", Name: "Sandbox Store UAE", TestKey: "sk_test_ae_sandbox", LiveKey: "sk_ae_sandbox"},
		{Code: "kw-sandbox", Region: "ae", Currency: "KWD", Name: "Sandbox Store Kuwait", TestKey: "sk_test_kw_sandbox", LiveKey: "sk_kw_sandbox"},
		{Code: "sa-sandbox", Region: "sa", Currency: "SAR", Name: "Sandbox Store KSA", TestKey: "sk_test_sa_sandbox", LiveKey: "sk_sa_sandbox"},
	}
}

// maxMerchantsFile bounds a --merchants file: thousands of merchants fit.
const maxMerchantsFile = 4 << 20

// LoadMerchants reads the merchants of a --merchants file. The file is YAML
// (JSON, being YAML, works too): either a list of merchants or an object
// with a "merchants" list. Each merchant has code, region (ae or sa),
// currency (AED or KWD on ae, SAR on sa), name, test_key (prefix sk_test_),
// live_key (prefix sk_, not sk_test_) and optionally tokens_enabled:
//
//	merchants:
//	  - code: my-store
//	    region: ae
//	    currency: AED
//	    name: My Store
//	    test_key: sk_test_my_store
//	    live_key: sk_my_store
//	    tokens_enabled: true
//
// Codes and keys must be unique; at least one key is needed per merchant.
func LoadMerchants(path string) ([]Merchant, error) {
	b, err := userfile.Read("", path, nil, maxMerchantsFile)
	if err != nil {
		return nil, err
	}
	var list []Merchant
	if err := yaml.Unmarshal(b, &list); err != nil {
		var wrapped struct {
			Merchants []Merchant `yaml:"merchants"`
		}
		if err2 := yaml.Unmarshal(b, &wrapped); err2 != nil {
			return nil, fmt.Errorf("%s: %w", path, err2)
		}
		list = wrapped.Merchants
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%s: no merchants found (expected a list, or an object with a \"merchants\" list)", path)
	}
	if err := validateMerchants(list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return list, nil
}

func validateMerchants(list []Merchant) error {
	codes := map[string]bool{}
	keys := map[string]bool{}
	for i := range list {
		m := &list[i]
		m.Region = strings.ToLower(strings.TrimSpace(m.Region))
		m.Currency = strings.ToUpper(strings.TrimSpace(m.Currency))
		if m.Code == "" {
			return fmt.Errorf("merchant %d: code is required", i+1)
		}
		if codes[m.Code] {
			return fmt.Errorf("merchant %q: code used twice", m.Code)
		}
		codes[m.Code] = true
		if m.Region != "ae" && m.Region != "sa" {
			return fmt.Errorf("merchant %q: region must be ae or sa, got %q", m.Code, m.Region)
		}
		if !money.Known(m.Currency) {
			return fmt.Errorf("merchant %q: currency must be one of %s, got %q", m.Code, strings.Join(money.Currencies(), ", "), m.Currency)
		}
		if (m.Currency == "SAR") != (m.Region == "sa") {
			return fmt.Errorf("merchant %q: currency %s does not belong to region %s (SAR is sa; AED and KWD are ae)", m.Code, m.Currency, m.Region)
		}
		if m.Name == "" {
			m.Name = m.Code
		}
		if m.TestKey == "" && m.LiveKey == "" {
			return fmt.Errorf("merchant %q: needs a test_key or a live_key", m.Code)
		}
		if m.TestKey != "" && !strings.HasPrefix(m.TestKey, "sk_test_") {
			return fmt.Errorf("merchant %q: test_key must start with sk_test_", m.Code)
		}
		if m.LiveKey != "" && (!strings.HasPrefix(m.LiveKey, "sk_") || strings.HasPrefix(m.LiveKey, "sk_test_")) {
			return fmt.Errorf("merchant %q: live_key must start with sk_ (and not sk_test_)", m.Code)
		}
		for _, k := range []string{m.TestKey, m.LiveKey} {
			if k == "" {
				continue
			}
			if keys[k] {
				return fmt.Errorf("merchant %q: a key is used twice", m.Code)
			}
			keys[k] = true
		}
	}
	return nil
}
