package cmdutil

import (
	"net/http"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// paymentPath is where the service answers one payment and its moves.
const paymentPath = "/api/v2/payments/"

// LiveHint gives a 404 of a payment read with a test key the hint that
// matters most: test keys see test payments only, so a live payment (a
// disputed one, a customer's real order) is "not found" until --live asks
// with the live key. Any other error is returned as it is.
func (f *Factory) LiveHint(err error) error {
	e, ok := api.AsAPIError(err)
	if !ok || e.Status != http.StatusNotFound || !strings.HasPrefix(e.Path, paymentPath) {
		return err
	}
	f.mu.Lock()
	t := f.target
	f.mu.Unlock()
	if t == nil || t.Live {
		return err
	}
	return WithHint(err, "check the id and that the profile (merchant, region, test/live) is the one that created it: test keys see test payments only, and a live one (a disputed payment is) needs --live")
}
