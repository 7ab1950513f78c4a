package disputes

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// AnswerOptions are what the merchant's two answers to a dispute share
// (`disputes evidence` and `disputes challenge`): the dispute answered,
// the attachments sent with the answer, and the dependencies.
type AnswerOptions struct {
	ID     string
	Attach []string

	Notice  func(format string, args ...any)
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

func newAnswerOptions(f *cmdutil.Factory) AnswerOptions {
	return AnswerOptions{Notice: f.Noticef, Target: LiveTarget(f, "disputes"), Client: LiveClient(f, "disputes"), Printer: f.Printer}
}

// answerCmd is the command of an answer: the dispute id its one
// argument, --attach among its flags, and check run before anything else.
func answerCmd(cmd *cobra.Command, o *AnswerOptions, check func() error, run func(context.Context) error) *cobra.Command {
	cmd.Args = cmdutil.ExactArgs(1, "a dispute id")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.ID = args[0]
		if err := check(); err != nil {
			return err
		}
		return run(cmd.Context())
	}
	cmd.Flags().StringArrayVar(&o.Attach, "attach", nil, "a PNG, JPEG or PDF file, or an attachment id (repeat, at most 5)")
	return cmd
}

// send does what every answer does, in an order that sends nothing until
// every local check has passed: the live key, every file checked, then
// the files uploaded and the answer sent (by request, with the uploaded
// attachments' ids). A 409 says where to see whether the dispute still
// takes an answer.
func (o *AnswerOptions) send(ctx context.Context, request func(client *api.Client, attachmentIDs []string) error) (*output.Printer, error) {
	if err := RequireLive(o.Target, "disputes"); err != nil {
		return nil, err
	}
	atts, err := prepareAttachments(o.Attach)
	if err != nil {
		return nil, err
	}
	defer closeAttachments(atts)
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return nil, err
	}
	ids, err := uploadAttachments(ctx, client, atts, o.Notice)
	if err != nil {
		return nil, err
	}
	if err := request(client, ids); err != nil {
		return nil, notTakenHint(err, o.ID)
	}
	return printer, nil
}
