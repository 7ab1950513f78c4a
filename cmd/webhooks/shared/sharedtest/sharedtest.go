// Package sharedtest is what the tests of the two webhook nouns (webhooks,
// dispute-webhooks) share: the options of their verbs against a service
// a test serves.
package sharedtest

import (
	"github.com/bnpl-cli/bnpl/cmd/webhooks/shared"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// HookSecret is the value of the header a test's webhook carries.
const HookSecret = "hook-secret-0123456789"

// Options are the options of a verb of merchant shop-ae on the service at
// baseURL, with its test key or (live) its live key, printing JSON on the
// streams returned. Notices are dropped.
func Options(baseURL string, live bool) (shared.Options, *output.IOStreams) {
	ios, _, _, _ := output.Test()
	key := "sk_test_0123456789abcdef"
	if live {
		key = "sk_live0123456789abcdef"
	}
	return shared.Options{
		Notice: func(string, ...any) {},
		Target: func() (*config.Target, error) {
			return &config.Target{Live: live, SecretKey: key, BaseURL: baseURL, MerchantCode: "shop-ae"}, nil
		},
		Client: func() (*api.Client, error) {
			return api.New(api.Options{BaseURL: baseURL, SecretKey: key, MerchantCode: "shop-ae", Retries: 0})
		},
		Printer: func() (*output.Printer, error) { return output.NewPrinter(ios, output.Options{Format: "json"}) },
	}, ios
}
