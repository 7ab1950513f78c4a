package disputes

import (
	"context"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// reasonPrefix starts every challenge reason; it may be left out on the
// command line.
const reasonPrefix = "merchant_reason_"

// ChallengeOptions are the inputs of `disputes challenge`.
type ChallengeOptions struct {
	AnswerOptions
	Reason      string
	Description string
	Amount      string

	amount *decimal.Decimal
}

func newChallengeCmd(f *cmdutil.Factory, run func(context.Context, *ChallengeOptions) error) *cobra.Command {
	opts := &ChallengeOptions{AnswerOptions: newAnswerOptions(f)}
	if run == nil {
		run = challengeRun
	}
	cmd := answerCmd(&cobra.Command{
		Use:   "challenge <dispute-id> --reason R --description TEXT [--amount A] [--attach FILE_OR_ID]...",
		Short: "Contest a dispute with a reason, a description and attachments",
		Long: `Contest a dispute: the service's support looks at it again. --reason is one of

  ` + strings.Join(api.ChallengeReasons, "\n  ") + `

and may be given without its merchant_reason_ prefix. The amount reason needs
--amount (what the order should have cost); other reasons take no amount. --attach
takes files (uploaded first) or attachment ids, at most 5.
` + liveOnlyNote,
		Example: `  bnpl disputes challenge 9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11 --reason order_has_been_already_delivered --description "Signed for on 2 May" --attach pod.pdf
  bnpl disputes challenge 9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11 --reason merchant_reason_order_amount_should_be_different --amount 80.00 --description "One item was returned"`,
	}, &opts.AnswerOptions, opts.validate, func(ctx context.Context) error { return run(ctx, opts) })
	fl := cmd.Flags()
	fl.StringVar(&opts.Reason, "reason", "", "why the dispute is contested (required; see above)")
	fl.StringVar(&opts.Description, "description", "", "explanation for the service's support (required)")
	fl.StringVar(&opts.Amount, "amount", "", "the amount the order should have been, with the amount reason")
	return cmd
}

func (o *ChallengeOptions) validate() error {
	if err := cmdutil.CheckUUID("dispute", o.ID); err != nil {
		return err
	}
	reasons := "reasons: " + strings.Join(api.ChallengeReasons, ", ")
	reason := strings.ToLower(strings.TrimSpace(o.Reason))
	if reason == "" {
		return cmdutil.UsageHint(reasons, "--reason is required")
	}
	if !strings.HasPrefix(reason, reasonPrefix) {
		reason = reasonPrefix + reason
	}
	if !slices.Contains(api.ChallengeReasons, reason) {
		return cmdutil.UsageHint(reasons, "invalid --reason %q", o.Reason)
	}
	o.Reason = reason
	if strings.TrimSpace(o.Description) == "" {
		return cmdutil.Usagef("--description is required and must not be empty")
	}
	switch {
	case reason == api.ChallengeReasonAmount && o.Amount == "":
		return cmdutil.UsageHint("pass --amount with the amount the order should have been", "reason %s needs --amount", reason)
	case reason != api.ChallengeReasonAmount && o.Amount != "":
		return cmdutil.UsageHint("use --reason "+api.ChallengeReasonAmount+" to contest the amount", "--amount goes only with reason %s", api.ChallengeReasonAmount)
	case o.Amount != "":
		d, err := money.ParsePositive(o.Amount, "")
		if err != nil {
			return cmdutil.UsageHint("write the amount as a plain decimal such as 80.00", "%v", err)
		}
		o.amount = &d
	}
	return nil
}

func challengeRun(ctx context.Context, o *ChallengeOptions) error {
	var answer []byte
	printer, err := o.send(ctx, func(client *api.Client, attachmentIDs []string) (err error) {
		answer, err = client.ChallengeDispute(ctx, api.ChallengeRequest{
			DisputeID:     o.ID,
			Description:   o.Description,
			Reason:        o.Reason,
			Amount:        o.amount,
			AttachmentIDs: attachmentIDs,
		})
		return err
	})
	if err != nil {
		return err
	}
	o.Notice("challenged dispute %s (%s)", o.ID, o.Reason)
	return printAnswer(printer, answer)
}

// printAnswer prints an answer whose shape the service does not document:
// an object as a record, anything else (null, empty) not at all.
func printAnswer(printer *output.Printer, answer []byte) error {
	trimmed := strings.TrimSpace(string(answer))
	if !strings.HasPrefix(trimmed, "{") {
		return nil
	}
	return printer.Object(answer, nil)
}
