package webhooks

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// UpdateOptions are the inputs of `webhooks update`.
type UpdateOptions struct {
	ID string
	RequestOptions
}

func newUpdateCmd(f *cmdutil.Factory, run func(context.Context, *UpdateOptions) error) *cobra.Command {
	opts := &UpdateOptions{RequestOptions: newRequestOptions(f)}
	var test bool
	cmd := &cobra.Command{
		Use:   "update <webhook-id> <url> (--header-title T --header-value-stdin|--header-value-env VAR | --remove-header)",
		Short: "Replace a payment webhook's URL and header",
		Long: `Replace a payment webhook: the URL and the header are sent whole. The service shows
header values masked, so the current value cannot be sent back: give the header again,
or pass --remove-header to register the webhook without one. One of the two is
required, so that a header is never dropped by omission.`,
		Example: `  bnpl webhooks update 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b https://example.com/hooks/v2 --header-title X-Hook --header-value-env HOOK_SECRET
  bnpl webhooks update 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b https://example.com/hooks/v2 --remove-header`,
		Args: cmdutil.ExactArgs(2, "a webhook id", "a webhook URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID, opts.URL = args[0], args[1]
			if err := cmdutil.CheckUUID("webhook", opts.ID); err != nil {
				return err
			}
			if cmd.Flags().Changed("test") {
				opts.Test = &test
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
	fl := cmd.Flags()
	opts.Header.Register(fl, true)
	fl.BoolVar(&test, "test", false, "receive test-mode notifications (default: the mode of the key)")
	fl.BoolVar(&opts.URLRule.AllowLocal, "allow-local", false, "skip the public-host rules against a sandbox (a loopback URL sent to a sandbox served on loopback needs no flag)")
	return cmd
}

func updateRun(ctx context.Context, o *UpdateOptions) error {
	req, printer, client, err := o.prepare(ctx)
	if err != nil {
		return err
	}
	w, err := client.UpdateWebhook(ctx, o.ID, *req)
	if err != nil {
		return ExplainRefusal(err, req.URL, o.Target)
	}
	return printer.Object(w.Raw(), Detail(w))
}
