package config

import (
	"errors"
	"testing"
)

// The ledger of bulk moves: --ledger, else BNPL_LEDGER, else the target's
// profile's ledger setting (kept in the file across a save), else the
// state directory's. A profile's ledger that is not a postgres:// URL is
// refused.
func TestLedgerIsFlagThenEnvThenProfile(t *testing.T) {
	const team = "postgres://clerk@db.example.com:5432/bnpl?sslmode=verify-full"
	c := newConfig(t, Profile{Name: "acme", Region: "ae", MerchantCode: "acme", TestSecretKey: "sk_test_abc", Ledger: team})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c, err := Load(c.Path())
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Profile("acme"); p.Ledger != team {
		t.Fatalf("the profile's ledger after a save: %q", p.Ledger)
	}
	target := &Target{Profile: "acme"}
	env := envOf(map[string]string{EnvLedger: "postgres://env/x"})
	for _, tc := range []struct {
		flag                string
		env                 func(string) string
		target              *Target
		wantURL, wantSource string
	}{
		{"postgres://flag/x", env, target, "postgres://flag/x", SourceFlag},
		{"", env, target, "postgres://env/x", SourceEnv},
		{"", nil, target, team, SourceProfile},
		{"", nil, &Target{}, "", SourceDefault},
	} {
		url, source := Ledger(tc.flag, c, tc.target, tc.env)
		if url != tc.wantURL || source != tc.wantSource {
			t.Errorf("Ledger(%q): %q from %s, want %q from %s", tc.flag, url, source, tc.wantURL, tc.wantSource)
		}
	}
	err = c.SetProfile(Profile{Name: "bad", Region: "ae", MerchantCode: "acme", TestSecretKey: "sk_test_abc", Ledger: "mysql://db/x"})
	var invalid *InvalidError
	if !errors.As(err, &invalid) || invalid.Field != keyLedger {
		t.Fatalf("a ledger that is not postgres://: %v", err)
	}
}
