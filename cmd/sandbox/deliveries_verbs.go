package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

func newResendCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "resend <delivery-id>",
		Short: "Send a delivery's notification again, now",
		Long: `Send the notification of a delivery again, now, to the webhook it was for (at its
URL and with its header as registered today), and print the attempt. The id is the
first column of ` + "`bnpl sandbox deliveries`" + `. A resend that is not answered 200 is
not retried; its attempt is listed like the others, marked as a resend.`,
		Example: `  bnpl sandbox deliveries resend 9b2f6c1e-4a47-4a3c-9d1e-5f8e2a7b3c10`,
		Args:    cmdutil.ExactArgs(1, "a delivery id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.CheckUUID("delivery", args[0]); err != nil {
				return err
			}
			raw, err := sandboxCall(cmd.Context(), f, http.MethodPost, "/_sandbox/deliveries/"+args[0]+"/resend", nil, nil)
			if err != nil {
				return err
			}
			var a struct {
				Outcome    string `json:"outcome"`
				HTTPStatus int    `json:"http_status"`
				Error      string `json:"error"`
				URL        string `json:"url"`
			}
			printer, err := readAnswer(f, raw, &a, "a delivery attempt")
			if err != nil {
				return err
			}
			// One attempt: an object for machines, a row of the list's
			// table for people.
			if err := printAnswer(printer, raw, func() error {
				return printer.List(DeliveryColumns(f.IO, printer.Format()), []json.RawMessage{raw})
			}); err != nil {
				return err
			}
			if a.Outcome != "delivered" {
				return &resendFailed{msg: "the resend failed: " + attemptResult(a.HTTPStatus, a.Error)}
			}
			f.Noticef("resent delivery %s: answered %d", args[0], a.HTTPStatus)
			return nil
		},
	}
}

// resendFailed is a resend the receiver did not take: exit 1, the
// attempt having been printed.
type resendFailed struct{ msg string }

func (e *resendFailed) Error() string { return e.msg }
func (e *resendFailed) ExitCode() int { return cmdutil.ExitError }

func attemptResult(status int, errText string) string {
	switch {
	case errText != "" && status != 0:
		return errText
	case errText != "":
		return errText
	case status != 0:
		return strconv.Itoa(status)
	}
	return ""
}

func newDropCmd(f *cmdutil.Factory) *cobra.Command {
	var paymentID, disputeID string
	cmd := &cobra.Command{
		Use:   "drop [--payment ID | --dispute ID]",
		Short: "End the pending deliveries without sending them",
		Long: `End the deliveries still waiting for an attempt (those bnpl sandbox deliveries
--status pending lists), every one or those of one payment or dispute, without
sending them: each becomes failed, with an attempt that says it was dropped. For
notifications no one will receive: to a host name a hermetic sandbox never looks
up, or to a receiver that is gone.`,
		Example: `  bnpl sandbox deliveries drop
  bnpl sandbox deliveries drop --payment 3fa85f64-5717-4562-b3fc-2c963f66afa6`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := &DeliveriesOptions{PaymentID: paymentID, DisputeID: disputeID}
			spec := tailSpec{q: url.Values{}}
			if err := opts.subject(cmd.Context(), f, &spec); err != nil {
				return err
			}
			raw, err := sandboxCall(cmd.Context(), f, http.MethodPost, "/_sandbox/pending-deliveries/drop", spec.q, nil)
			if err != nil {
				return err
			}
			var answer struct {
				Dropped int `json:"dropped"`
			}
			if err := json.Unmarshal(raw, &answer); err != nil {
				return fmt.Errorf("sandbox answered something unexpected: %w", err)
			}
			printer, err := f.Printer()
			if err != nil {
				return err
			}
			return printAnswer(printer, raw, func() error {
				f.Noticef("dropped %d pending deliveries", answer.Dropped)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&paymentID, "payment", "", "only the deliveries of this payment (its own and its disputes'); an id or order:REF")
	cmd.Flags().StringVar(&disputeID, "dispute", "", "only the deliveries of this dispute")
	return cmd
}
