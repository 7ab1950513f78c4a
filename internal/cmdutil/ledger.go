package cmdutil

import "github.com/bnpl-cli/bnpl/internal/config"

// LedgerOf resolves the ledger of bulk moves for f's commands: --ledger
// (given as flag), else BNPL_LEDGER, else the profile's ledger setting,
// else "" (the state directory's).
func LedgerOf(f *Factory) func(flag string) (url, source string) {
	return func(flag string) (string, string) {
		if flag != "" {
			return config.Ledger(flag, nil, nil, f.Getenv)
		}
		c, _ := f.Config()
		t, _ := f.Target()
		return config.Ledger("", c, t, f.Getenv)
	}
}

// CheckLedgerFlag refuses a --ledger that is not a postgres:// URL.
func CheckLedgerFlag(url string) error {
	if url == "" || config.IsLedgerURL(url) {
		return nil
	}
	return UsageHint("write it as postgres://user@host:5432/database?sslmode=verify-full; leave it out to keep the ledger on this machine",
		"--ledger must be a postgres:// URL")
}
