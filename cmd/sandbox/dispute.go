package sandbox

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/disputes"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// resolveStatuses are what support can move a dispute to: the final ones
// first, then the open ones it may hand the dispute back in.
var resolveStatuses = []string{"declined", "cancelled", "refunded", "in_progress", "evidence_merchant", "evidence_customer"}

func newDisputeCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dispute <open|resolve>",
		Short: "Open a dispute as the customer, or resolve one as the service's support",
		Long: `Disputes are raised by customers and settled by the service's support; the API only
lets the merchant answer them. These verbs play both other sides on the sandbox.
Disputes exist on live payments only: create the payment with the live key.`,
	}
	cmd.AddCommand(newDisputeOpenCmd(f), newDisputeResolveCmd(f))
	return cmd
}

func newDisputeOpenCmd(f *cmdutil.Factory) *cobra.Command {
	var reason, amount string
	cmd := &cobra.Command{
		Use:   "open <payment-id | order:REF>",
		Short: "Open a dispute on a live CLOSED payment with captures, as its customer",
		Long: `Open a dispute on a live payment that is CLOSED and has captures, as its customer
would. The dispute starts "new", with 14 days for the merchant to answer, and its
dispute webhooks are notified. The amount defaults to what was captured and not
refunded, and may not exceed it. order:REF names the payment by its order number,
looked up with the key the other commands use (--live for a live payment).`,
		Example: `  bnpl sandbox dispute open 3fa85f64-5717-4562-b3fc-2c963f66afa6
  bnpl sandbox dispute open 3fa85f64-5717-4562-b3fc-2c963f66afa6 --reason not_delivered --amount 20.00 -o json`,
		Args: cmdutil.ExactArgs(1, cmdutil.PaymentArgHelp),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.CheckPaymentArg(args[0]); err != nil {
				return err
			}
			if !slices.Contains(api.DisputeReasons, reason) {
				return cmdutil.Refuse("reasons: "+strings.Join(api.DisputeReasons, ", "), "--reason %q is not a dispute reason", reason)
			}
			body := map[string]any{"reason": reason}
			if amount != "" {
				d, err := decimal.NewFromString(amount)
				if err != nil || !d.IsPositive() {
					return cmdutil.Refuse("give a positive decimal such as 20.00", "--amount %q is not a positive amount", amount)
				}
				body["amount"] = amount
			}
			id, err := paymentArg(cmd.Context(), f, args[0])
			if err != nil {
				return err
			}
			raw, err := Control(cmd.Context(), f, http.MethodPost, "/_sandbox/payments/"+id+"/dispute", nil, body)
			if err != nil {
				return err
			}
			return printDispute(f, raw)
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "product_issue", "the customer's reason: "+strings.Join(api.DisputeReasons, ", "))
	cmd.Flags().StringVar(&amount, "amount", "", "the disputed amount (default: captured minus refunded)")
	return cmd
}

func newDisputeResolveCmd(f *cmdutil.Factory) *cobra.Command {
	var status string
	cmd := &cobra.Command{
		Use:   "resolve <dispute-id> --status S",
		Short: "Move a dispute as the service's support: decline, cancel or refund it",
		Long: `Settle a dispute as the service's support would: declined (the merchant wins),
cancelled (the customer withdrew) or refunded (the customer wins: the disputed amount
is refunded on the payment). It can also hand an open dispute on: in_progress,
evidence_merchant (asks the merchant for evidence again) or evidence_customer. A
resolved dispute does not move again.`,
		Example: `  bnpl sandbox dispute resolve 3fa85f64-5717-4562-b3fc-2c963f66afa6 --status declined
  bnpl sandbox dispute resolve 3fa85f64-5717-4562-b3fc-2c963f66afa6 --status refunded -o json`,
		Args: cmdutil.ExactArgs(1, "a dispute id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.CheckUUID("dispute", args[0]); err != nil {
				return err
			}
			if !slices.Contains(resolveStatuses, status) {
				return cmdutil.Refuse("statuses: "+strings.Join(resolveStatuses, ", "), "--status %q: give the status to move the dispute to", status)
			}
			raw, err := Control(cmd.Context(), f, http.MethodPost, "/_sandbox/disputes/"+args[0]+"/resolve", nil, map[string]string{"status": status})
			if err != nil {
				return err
			}
			return printDispute(f, raw)
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "the new status: "+strings.Join(resolveStatuses, ", ")+" (required)")
	return cmd
}

func printDispute(f *cmdutil.Factory, raw json.RawMessage) error {
	var d api.Dispute
	printer, err := readAnswer(f, raw, &d, "a dispute")
	if err != nil {
		return err
	}
	return printer.Object(d.Raw(), disputes.Detail(&d))
}
