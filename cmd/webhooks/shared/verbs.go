package shared

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// Verbs are the five commands of a webhook noun, in the order help lists
// them.
func Verbs(f *cmdutil.Factory, r *Resource) []*cobra.Command {
	return []*cobra.Command{newAddCmd(f, r), newListCmd(f, r), newGetCmd(f, r), newUpdateCmd(f, r), newRemoveCmd(f, r)}
}

func (h Help) command() *cobra.Command {
	return &cobra.Command{Use: h.Use, Short: h.Short, Long: h.Long, Example: h.Example}
}

// oneWebhook is a verb that acts on the webhook its one argument names.
func oneWebhook(h Help, r *Resource, o *Options, run func(context.Context, *Resource, *Options) error) *cobra.Command {
	return cmdutil.OneRecord(h.command(), r.IDKind, r.IDArg, &o.ID, func(ctx context.Context) error { return run(ctx, r, o) })
}

// withRequestFlags gives add or update the header flags, --test where the
// resource has it, and --allow-local; before each run it takes --test
// when given and checks the header flags.
func withRequestFlags(cmd *cobra.Command, r *Resource, o *RequestOptions, update bool) *cobra.Command {
	var test bool
	fl := cmd.Flags()
	o.Header.Register(fl, update)
	if r.TestFlag {
		fl.BoolVar(&test, "test", false, "receive test-mode notifications (default: the mode of the key)")
	}
	fl.BoolVar(&o.URLRule.AllowLocal, "allow-local", false, "skip the public-host rules against a sandbox (a loopback URL sent to a sandbox served on loopback needs no flag)")
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if r.TestFlag && cmd.Flags().Changed("test") {
			o.Test = &test
		}
		return nil
	}
	return cmd
}

func newAddCmd(f *cmdutil.Factory, r *Resource) *cobra.Command {
	o := newRequestOptions(f, r)
	cmd := r.Add.command()
	cmd.Args = cmdutil.ExactArgs(1, "a webhook URL")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.URL = args[0]
		if err := o.Header.Validate(false); err != nil {
			return err
		}
		return Add(cmd.Context(), r, o)
	}
	return withRequestFlags(cmd, r, o, false)
}

func newUpdateCmd(f *cmdutil.Factory, r *Resource) *cobra.Command {
	o := newRequestOptions(f, r)
	cmd := r.Update.command()
	cmd.Args = cmdutil.ExactArgs(2, "a webhook id", "a webhook URL")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.ID, o.URL = args[0], args[1]
		if err := cmdutil.CheckUUID(r.IDKind, o.ID); err != nil {
			return err
		}
		if err := o.Header.Validate(true); err != nil {
			return err
		}
		return Update(cmd.Context(), r, o)
	}
	return withRequestFlags(cmd, r, o, true)
}

func newListCmd(f *cmdutil.Factory, r *Resource) *cobra.Command {
	o := r.Deps(f)
	cmd := r.List.command()
	cmd.Args = cmdutil.NoArgs
	cmd.Flags().IntVarP(&o.Limit, "limit", "L", 0, "list at most this many "+r.Noun+"s (default: every one)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if cmd.Flags().Changed("limit") && o.Limit < 1 {
			return cmdutil.Usagef("--limit must be at least 1, got %d", o.Limit)
		}
		return List(cmd.Context(), r, &o)
	}
	return cmd
}

func newGetCmd(f *cmdutil.Factory, r *Resource) *cobra.Command {
	o := r.Deps(f)
	return oneWebhook(r.Get, r, &o, Get)
}

func newRemoveCmd(f *cmdutil.Factory, r *Resource) *cobra.Command {
	o := r.Deps(f)
	return oneWebhook(r.Remove, r, &o, Remove)
}

// Add registers the webhook of o.
func Add(ctx context.Context, r *Resource, o *RequestOptions) error {
	req, printer, client, err := r.prepare(ctx, o)
	if err != nil {
		return err
	}
	h, err := r.Create(ctx, client, *req)
	if err != nil {
		if r.ExplainCreate != nil {
			if explained := r.ExplainCreate(ctx, client, req.URL, err); explained != nil {
				return explained
			}
		}
		return ExplainRefusal(err, req.URL, o.Target)
	}
	o.Notice("registered %s %s", r.Noun, h.ID)
	return printer.Object(h.Raw, h.Detail)
}

// Update replaces the webhook o.ID with the one of o.
func Update(ctx context.Context, r *Resource, o *RequestOptions) error {
	req, printer, client, err := r.prepare(ctx, o)
	if err != nil {
		return err
	}
	h, err := r.Replace(ctx, client, o.ID, *req)
	if err != nil {
		return ExplainRefusal(err, req.URL, o.Target)
	}
	return printer.Object(h.Raw, h.Detail)
}

// List prints every webhook of the resource, header values masked.
func List(ctx context.Context, r *Resource, o *Options) error {
	if err := r.requireLive(o); err != nil {
		return err
	}
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return err
	}
	hooks, err := r.ListAll(ctx, client)
	if err != nil {
		return err
	}
	if o.Limit > 0 && len(hooks) > o.Limit {
		if o.Notice != nil {
			defer o.Notice("showing the first %d of %d %ss: --limit N for more", o.Limit, len(hooks), r.Noun)
		}
		hooks = hooks[:o.Limit]
	}
	recs := make([]json.RawMessage, 0, len(hooks))
	for i := range hooks {
		recs = append(recs, hooks[i].Raw)
	}
	if len(recs) == 0 && o.Notice != nil {
		o.Notice("no %ss: add one with `bnpl %s add URL`", r.Noun, r.Command)
	}
	return printer.List(r.Columns, recs)
}

// Get prints the webhook o.ID, its header value masked.
func Get(ctx context.Context, r *Resource, o *Options) error {
	if err := r.requireLive(o); err != nil {
		return err
	}
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return err
	}
	h, err := r.Read(ctx, client, o.ID)
	if err != nil {
		return err
	}
	return printer.Object(h.Raw, h.Detail)
}

// Remove removes the webhook o.ID; a live one only once the person at a
// terminal has confirmed.
func Remove(ctx context.Context, r *Resource, o *Options) error {
	if err := r.requireLive(o); err != nil {
		return err
	}
	if o.Target != nil && o.Confirm != nil {
		t, err := o.Target()
		if err != nil {
			return err
		}
		if t.Live {
			if err := o.Confirm(ctx, "LIVE: remove "+r.Noun+" "+o.ID+"?"); err != nil {
				return err
			}
		}
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	if err := r.Delete(ctx, client, o.ID); err != nil {
		return err
	}
	o.Notice("removed %s %s", r.Noun, o.ID)
	return nil
}
