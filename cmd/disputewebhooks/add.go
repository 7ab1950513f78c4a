package disputewebhooks

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/webhooks"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// AddOptions are the inputs of `dispute-webhooks add`.
type AddOptions struct {
	RequestOptions
}

func newAddCmd(f *cmdutil.Factory, run func(context.Context, *AddOptions) error) *cobra.Command {
	opts := &AddOptions{newRequestOptions(f)}
	cmd := &cobra.Command{
		Use:   "add <url> [--header-title T (--header-value-stdin | --header-value-env VAR)]",
		Short: "Register a dispute webhook",
		Long: `Register a dispute webhook. The URL is checked and normalised first, and the
header title and value are checked; see bnpl dispute-webhooks --help for the rules.
` + liveOnlyNote,
		Example: `  bnpl dispute-webhooks add https://example.com/hooks/disputes
  printf '%s\n' "$HOOK_SECRET" | bnpl dispute-webhooks add https://example.com/hooks/disputes --header-title X-Hook --header-value-stdin
  bnpl dispute-webhooks add https://example.com/hooks/disputes --header-title X-Hook --header-value-env HOOK_SECRET`,
		Args: cmdutil.ExactArgs(1, "a webhook URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.URL = args[0]
			if err := opts.Header.Validate(false); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return addRun(cmd.Context(), opts)
		},
	}
	opts.register(cmd, false)
	return cmd
}

func addRun(ctx context.Context, o *AddOptions) error {
	req, printer, client, err := o.prepare(ctx)
	if err != nil {
		return err
	}
	w, err := client.CreateDisputeWebhook(ctx, *req)
	if err != nil {
		err = explainRefusal(ctx, client, req.URL, err)
		var h *hinted
		if errors.As(err, &h) {
			return err
		}
		return webhooks.ExplainRefusal(err, req.URL, o.Target)
	}
	o.Notice("registered dispute webhook %s", w.ID)
	return printer.Object(w.Raw(), Detail(w))
}
