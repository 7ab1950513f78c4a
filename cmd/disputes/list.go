package disputes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
	Statuses []string
	Since    string
	Until    string
	All      bool
	// Limit is the most disputes listed (--limit), every page read as
	// it takes; 0 is no limit.
	Limit     int
	PageToken string
	// Payment keeps the disputes of one payment (matched here).
	Payment string
	// Due keeps the open disputes with at most this many days left,
	// soonest first, when HasDue.
	Due    int
	HasDue bool
	dueArg string

	Now     func() time.Time
	Notice  func(format string, args ...any)
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	// IO tells whether stdout is a terminal (an empty table then still
	// shows its header); nil: it is not.
	IO *output.IOStreams
	// Lookup finds the payment of --payment order:REF.
	Lookup *cmdutil.OrderLookup
}

func newListCmd(f *cmdutil.Factory, run func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Now: time.Now, Notice: f.Noticef, Target: LiveTarget(f, "disputes"), Client: LiveClient(f, "disputes"), Printer: f.PagedPrinter, IO: f.IO, Lookup: f.OrderLookup()}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List disputes, one page or all of them",
		Long: `List disputes. Without --status every status is listed; --status may be repeated
or given a comma-separated list. The service answers a page at a time: without --all
the command prints one page and names the token of the next on stderr; --all walks
every page and prints rows as they arrive. --limit N lists N disputes, reading as many
pages as it takes.

--payment keeps the disputes of one payment, and --due the open ones with at most that
many days left to answer (3d, or 3), soonest first, with their due date; both read every
page (the service filters by neither).

Known statuses: ` + strings.Join(api.DisputeStatuses, ", ") + `. Others are sent with a warning,
since the service may add some.
` + liveOnlyNote,
		Example: `  bnpl disputes list
  bnpl disputes list --status new --status evidence_merchant --since 7d
  bnpl disputes list --all -o jsonl > disputes.jsonl
  bnpl disputes list --payment 3fa85f64-5717-4562-b3fc-2c963f66afa6
  bnpl disputes list --due 3d`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("limit") && opts.All {
				return cmdutil.UsageHint("--limit N lists N disputes, --all every one", "--all and --limit cannot be used together")
			}
			if cmd.Flags().Changed("limit") && opts.Limit < 1 {
				return cmdutil.Usagef("--limit must be at least 1, got %d", opts.Limit)
			}
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
	fl.IntVarP(&opts.Limit, "limit", "L", 0, "list at most this many disputes, reading the pages it takes")
	fl.StringVar(&opts.PageToken, "page-token", "", "start at this page (the token a previous list printed)")
	fl.StringVar(&opts.Payment, "payment", "", "only the disputes of this payment, an id or order:REF (reads every page)")
	fl.StringVar(&opts.dueArg, "due", "", "only open disputes with at most this many days left (3d), soonest first (reads every page)")
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
	o.Payment = strings.TrimSpace(o.Payment)
	if o.Payment != "" {
		if err := cmdutil.CheckPaymentArg(o.Payment); err != nil {
			return err
		}
	}
	if o.dueArg != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(o.dueArg), "d"))
		if err != nil || n < 0 {
			return cmdutil.UsageHint("give a number of days: --due 3d (or 3)", "invalid --due %q", o.dueArg)
		}
		o.Due, o.HasDue = n, true
	}
	if (o.Payment != "" || o.HasDue) && o.PageToken != "" {
		return cmdutil.Usagef("--page-token cannot be used with --payment or --due, which read every page")
	}
	return cmdutil.NormalizeTimeRange(&o.Since, &o.Until, o.Now())
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
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return err
	}
	if o.Payment, err = o.Lookup.PaymentID(ctx, client, o.Payment); err != nil {
		return err
	}
	params := api.DisputeListParams{Statuses: o.Statuses, CreatedAtGTE: o.Since, CreatedAtLTE: o.Until, PageToken: o.PageToken}
	if !o.All && o.Payment == "" && !o.HasDue && o.Limit == 0 {
		page, err := client.ListDisputes(ctx, params)
		if err != nil {
			return err
		}
		recs := records(page)
		if err := printer.List(ListColumns, recs); err != nil {
			return err
		}
		switch {
		case page.NextPageToken != "":
			o.Notice("showing %d; more disputes: pass --all, or --page-token %s for the next page", len(recs), page.NextPageToken)
		case len(recs) == 0:
			o.Notice("no disputes match (%s)", o.describe())
		}
		return nil
	}
	if o.HasDue {
		return o.listDue(ctx, client, printer, params)
	}
	// Print each page as it arrives, so memory stays one page deep. The
	// printer decides what an empty list prints (a header, [] or nothing).
	stream := printer.Stream(ListColumns)
	printed, more := 0, false
	err = walkDisputes(ctx, client, params, func(d *api.Dispute) error {
		if o.Payment != "" && !strings.EqualFold(d.PaymentID, o.Payment) {
			return nil
		}
		if o.Limit > 0 && printed >= o.Limit {
			more = true
			return errEnough
		}
		printed++
		return stream.Write(d.Raw())
	}, func() { stream.Flush() })
	if errors.Is(err, errEnough) {
		err = nil
	}
	if more {
		defer o.Notice("showing the first %d dispute(s); more match: --limit N for more, --all for every one", printed)
	}
	if err != nil {
		// Left unclosed: a tidy "]" would pass for a whole list.
		return err
	}
	if err := stream.Close(); err != nil {
		return err
	}
	if printed == 0 {
		o.Notice("no disputes match (%s)", o.describe())
	}
	return nil
}

// listDue prints the open disputes with at most o.Due days left, soonest
// first. They are held to be sorted: the ones due soon are few.
func (o *ListOptions) listDue(ctx context.Context, client *api.Client, printer *output.Printer, params api.DisputeListParams) error {
	type due struct {
		at  time.Time
		raw json.RawMessage
	}
	var list []due
	err := walkDisputes(ctx, client, params, func(d *api.Dispute) error {
		if slices.Contains(finalStatuses, d.Status) || d.ExpiredAt == nil || d.DaysLeft > o.Due {
			return nil
		}
		if o.Payment != "" && !strings.EqualFold(d.PaymentID, o.Payment) {
			return nil
		}
		list = append(list, due{*d.ExpiredAt, d.Raw()})
		return nil
	}, nil)
	if err != nil {
		return err
	}
	slices.SortStableFunc(list, func(a, b due) int { return a.at.Compare(b.at) })
	if o.Limit > 0 && len(list) > o.Limit {
		list = list[:o.Limit]
	}
	recs := make([]json.RawMessage, len(list))
	for i := range list {
		recs[i] = list[i].raw
	}
	if err := printer.List(DueColumns, recs); err != nil {
		return err
	}
	if len(recs) == 0 {
		o.Notice("no open disputes due within %d days (%s)", o.Due, o.describe())
	}
	return nil
}

// errEnough stops a walk that listed what --limit asked for.
var errEnough = errors.New("enough disputes listed")

// finalStatuses are the dispute statuses nobody answers any more.
var finalStatuses = []string{"declined", "cancelled", "refunded"}

// walkDisputes reads every page, handing each dispute to each and calling
// pageDone after each page.
func walkDisputes(ctx context.Context, client *api.Client, params api.DisputeListParams, each func(*api.Dispute) error, pageDone func()) error {
	seen := map[string]bool{}
	for {
		page, err := client.ListDisputes(ctx, params)
		if err != nil {
			return err
		}
		for i := range page.Disputes {
			if err := each(&page.Disputes[i]); err != nil {
				return err
			}
		}
		if pageDone != nil {
			pageDone()
		}
		next := page.NextPageToken
		if next == "" {
			return nil
		}
		if seen[next] {
			// A token handed out twice would loop forever.
			return fmt.Errorf("the service returned page token %q twice; stopped walking pages", next)
		}
		seen[next] = true
		params.PageToken = next
	}
}

// describe says which disputes a list asked for, for an empty result.
func (o *ListOptions) describe() string {
	parts := []string{"every status"}
	if len(o.Statuses) > 0 {
		parts[0] = "status " + strings.Join(o.Statuses, "/")
	}
	if o.Payment != "" {
		parts = append(parts, "payment "+o.Payment)
	}
	if o.Since != "" {
		parts = append(parts, "created since "+output.FilterTime(o.Since))
	}
	if o.Until != "" {
		parts = append(parts, "created until "+output.FilterTime(o.Until))
	}
	return strings.Join(parts, ", ")
}

func records(page *api.DisputeList) []json.RawMessage {
	recs := make([]json.RawMessage, 0, len(page.Disputes))
	for i := range page.Disputes {
		recs = append(recs, page.Disputes[i].Raw())
	}
	return recs
}
