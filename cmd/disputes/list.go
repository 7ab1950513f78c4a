package disputes

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// ListOptions are the inputs of `disputes list`.
type ListOptions struct {
	Statuses  []string
	Since     string
	Until     string
	All       bool
	PageToken string

	Now     func() time.Time
	Notice  func(format string, args ...any)
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

func newListCmd(f *cmdutil.Factory, run func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Now: time.Now, Notice: f.Noticef, Target: f.Target, Client: f.Client, Printer: f.Printer}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List disputes, one page or all of them",
		Long: `List disputes. Without --status every status is listed; --status may be repeated
or given a comma-separated list. The service answers a page at a time: without --all
the command prints one page and names the token of the next on stderr; --all walks
every page and prints rows as they arrive.

Known statuses: ` + strings.Join(api.DisputeStatuses, ", ") + `. Others are sent with a warning,
since the service may add some.
` + liveOnlyNote,
		Example: `  bnpl disputes list --live
  bnpl disputes list --live --status new --status evidence_merchant --since 7d
  bnpl disputes list --live --all -o jsonl > disputes.jsonl`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Statuses, "status", nil, "only disputes in these statuses (repeat, or a,b)")
	fl.StringVar(&opts.Since, "since", "", "created at or after: a date, an RFC 3339 time, or a duration back (24h, 7d)")
	fl.StringVar(&opts.Until, "until", "", "created at or before: a date, an RFC 3339 time, or a duration back")
	fl.BoolVar(&opts.All, "all", false, "walk every page")
	fl.StringVar(&opts.PageToken, "page-token", "", "start at this page (the token a previous list printed)")
	return cmd
}

func (o *ListOptions) validate() error {
	statuses := make([]string, 0, len(o.Statuses))
	for _, s := range o.Statuses {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "" {
			continue // "new," leaves an empty item
		}
		if strings.ContainsAny(s, " \t") {
			return cmdutil.UsageHint("known statuses: "+strings.Join(api.DisputeStatuses, ", "), "invalid --status %q", s)
		}
		if !slices.Contains(statuses, s) {
			statuses = append(statuses, s)
		}
	}
	o.Statuses = statuses
	now := o.Now()
	for _, tf := range []struct {
		name string
		val  *string
	}{{"since", &o.Since}, {"until", &o.Until}} {
		if *tf.val == "" {
			continue
		}
		t, err := cmdutil.ParseTimeFlag(tf.name, *tf.val, now)
		if err != nil {
			return err
		}
		*tf.val = cmdutil.FormatTimeFlag(t)
	}
	return nil
}

func listRun(ctx context.Context, o *ListOptions) error {
	if err := RequireLive(o.Target, "disputes"); err != nil {
		return err
	}
	for _, s := range o.Statuses {
		if !slices.Contains(api.DisputeStatuses, s) {
			o.Notice("warning: %q is not a known dispute status (known: %s); sending it anyway", s, strings.Join(api.DisputeStatuses, ", "))
		}
	}
	printer, err := o.Printer()
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	params := api.DisputeListParams{Statuses: o.Statuses, CreatedAtGTE: o.Since, CreatedAtLTE: o.Until, PageToken: o.PageToken}
	if !o.All {
		page, err := client.ListDisputes(ctx, params)
		if err != nil {
			return err
		}
		if err := printer.List(ListColumns, records(page)); err != nil {
			return err
		}
		if page.NextPageToken != "" {
			o.Notice("more disputes: pass --all, or --page-token %s for the next page", page.NextPageToken)
		}
		return nil
	}
	// Print each page as it arrives, so memory stays one page deep.
	stream := printer.Stream(ListColumns)
	seen := map[string]bool{}
	for {
		page, err := client.ListDisputes(ctx, params)
		if err != nil {
			stream.Close()
			return err
		}
		for _, rec := range records(page) {
			if err := stream.Write(rec); err != nil {
				stream.Close()
				return err
			}
		}
		stream.Flush()
		next := page.NextPageToken
		if next == "" {
			break
		}
		if seen[next] {
			// A token handed out twice would loop forever.
			stream.Close()
			return fmt.Errorf("the service returned page token %q twice; stopped walking pages", next)
		}
		seen[next] = true
		params.PageToken = next
	}
	return stream.Close()
}

func records(page *api.DisputeList) []json.RawMessage {
	recs := make([]json.RawMessage, 0, len(page.Disputes))
	for i := range page.Disputes {
		recs = append(recs, page.Disputes[i].Raw())
	}
	return recs
}
