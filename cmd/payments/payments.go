// Package payments holds the `bnpl payments` commands.
package payments

import (
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// NewCmd returns `bnpl payments` and its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "payments <verb>",
		Short: "List, read, capture, refund and close payments",
		Long: `Payments are created by checkout and authorized by the customer. A merchant then
captures them (fully or in parts), closes them, and refunds captured money.`,
	}
	cmd.AddCommand(
		newGetCmd(f, nil),
		newListCmd(f, nil),
		newTimelineCmd(f, nil),
		newWaitCmd(f, nil),
		newUpdateCmd(f, nil),
		newCaptureCmd(f, nil),
		newRefundCmd(f, nil),
		newCloseCmd(f, nil),
		newApplyCmd(f, nil),
		newReportCmd(f, nil),
	)
	return cmd
}
