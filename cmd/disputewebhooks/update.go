package disputewebhooks

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/webhooks"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// UpdateOptions are the inputs of `dispute-webhooks update`.
type UpdateOptions struct {
	ID string
	RequestOptions
}

func newUpdateCmd(f *cmdutil.Factory, run func(context.Context, *UpdateOptions) error) *cobra.Command {
	opts := &UpdateOptions{RequestOptions: newRequestOptions(f)}
	cmd := &cobra.Command{
		Use:   "update <webhook-id> <url> (--header-title T --header-value-stdin|--header-value-env VAR | --remove-header)",
		Short: "Replace a dispute webhook's URL and header",
		Long: `Replace a dispute webhook as a whole (PUT): the service drops the header of a webhook
replaced without one. Since it shows header values masked, the current value cannot be
sent back: give the header again, or pass --remove-header to drop it. One of the two is
required, so that a header is never removed by omission.
` + liveOnlyNote,
		Example: `  bnpl dispute-webhooks update 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b https://example.com/hooks/disputes --header-title X-Hook --header-value-env HOOK_SECRET
  bnpl dispute-webhooks update 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b https://example.com/hooks/disputes --remove-header`,
		Args: cmdutil.ExactArgs(2, "a webhook id", "a webhook URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID, opts.URL = args[0], args[1]
			if err := cmdutil.CheckUUID("dispute webhook", opts.ID); err != nil {
				return err
			}
			if err := opts.Header.Validate(true); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return updateRun(cmd.Context(), opts)
		},
	}
	opts.register(cmd, true)
	return cmd
}

func updateRun(ctx context.Context, o *UpdateOptions) error {
	req, printer, client, err := o.prepare(ctx)
	if err != nil {
		return err
	}
	w, err := client.ReplaceDisputeWebhook(ctx, o.ID, *req)
	if err != nil {
		return webhooks.ExplainRefusal(err, req.URL, o.Target)
	}
	return printer.Object(w.Raw(), Detail(w))
}
