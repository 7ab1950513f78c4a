// Package webhooks holds the `bnpl webhooks` commands (payment webhooks),
// and the header and URL handling that `bnpl dispute-webhooks` shares.
package webhooks

import (
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// NewCmd returns `bnpl webhooks` and its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhooks <verb>",
		Short: "Register, list, change and remove payment webhooks",
		Long: `Payment webhooks receive a notification, the payment as JSON, when a payment is
authorized, captured, closed, rejected, refunded or updated. They use the key of the
profile's mode: the test key by default, the live key with --live.

A webhook URL must be https, absolute, and on a public host name: localhost, raw IP
addresses in any form, and names under .localhost, .local, .internal, .invalid, .test
or .example (names that never resolve) are refused before sending. The check looks
no name up in DNS; the service does its own lookup. Hosts are judged in their IDNA
form, so fullwidth and look-alike names are judged as what they stand for. The URL
is normalised as the service stores it: scheme and host lower case, international
names in xn-- form, default port and trailing slash removed. A loopback URL
(http://127.0.0.1:PORT/...) sent to a sandbox served on loopback is left to that
sandbox to judge: one started with --allow-local-webhooks accepts it, so that
notifications reach bnpl listen on this machine.

A static header (--header-title) is added to every notification, so the receiver
can tell it comes from the service. Its value is a secret: it is read from stdin or
an environment variable, never from a flag, and shown masked.`,
	}
	cmd.AddCommand(newAddCmd(f, nil), newListCmd(f, nil), newGetCmd(f, nil), newUpdateCmd(f, nil), newRemoveCmd(f, nil))
	return cmd
}
