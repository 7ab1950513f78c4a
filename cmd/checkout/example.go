package checkout

import (
	"embed"

	"github.com/bnpl-cli/bnpl/internal/config"
)

// The example requests of `checkout create --example`, one per currency:
// the files testdata/ holds (a test keeps them equal), built in so that
// the getting-started journey needs only the binary, not a clone.
//
//go:embed examples/checkout.json examples/checkout-kwd.json examples/checkout-sar.json
var examples embed.FS

// exampleName is the example in the target merchant's currency: AED
// unless the merchant sells only in KWD or SAR.
func exampleName(currencies []string) string {
	if len(currencies) == 1 {
		switch currencies[0] {
		case "KWD":
			return "examples/checkout-kwd.json"
		case "SAR":
			return "examples/checkout-sar.json"
		}
	}
	return "examples/checkout.json"
}

// exampleRequest is the example for target, and the merchant it is sent
// as: the target's own (the file names a built-in sandbox merchant).
func (o *CreateOptions) exampleRequest(target *config.Target) ([]byte, error) {
	currencies := o.Currencies(target, target.MerchantCode)
	if o.Currency != "" {
		currencies = []string{o.Currency}
	}
	return examples.ReadFile(exampleName(currencies))
}
