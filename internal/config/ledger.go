package config

import "strings"

// EnvLedger names the ledger of bulk moves, as --ledger does.
const EnvLedger = "BNPL_LEDGER"

// IsLedgerURL reports whether s names a PostgreSQL ledger.
func IsLedgerURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Ledger is the ledger of bulk moves a run uses and where that came
// from: flag (--ledger), else BNPL_LEDGER, else the target's profile's
// ledger setting, else "" (the state directory's, SourceDefault). c and
// t may be nil.
func Ledger(flag string, c *Config, t *Target, getenv func(string) string) (url, source string) {
	if flag = strings.TrimSpace(flag); flag != "" {
		return flag, SourceFlag
	}
	if v := envReader(getenv)(EnvLedger); v != "" {
		return v, SourceEnv
	}
	if c != nil && t != nil && t.Profile != "" {
		if p, ok := c.Profile(t.Profile); ok && p.Ledger != "" {
			return p.Ledger, SourceProfile
		}
	}
	return "", SourceDefault
}
