package payments

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/recent"
)

// Statuses the list filter takes: three API statuses and four dashboard ones.
var listStatuses = []string{"authorized", "closed", "rejected", "new", "captured", "refunded", "cancelled"}

// ListOptions are the inputs of `payments list`.
type ListOptions struct {
	Status      string
	Since       string
	Until       string
	Limit       int
	Offset      int
	All         bool
	ReferenceID string

	Now     func() time.Time
	Notice  func(format string, args ...any)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	// Seen remembers the newest printed payments for shell completion;
	// nil skips.
	Seen func(...recent.Entry)
}

func newListCmd(f *cmdutil.Factory, run func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Client: f.Client, Printer: f.Printer, Now: time.Now, Seen: recent.Recorder(f.Getenv)}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List payments, newest first",
		Long: `List payments, newest first. Without --status the service answers authorized and
closed payments. A page holds at most 20; --all walks every page and prints rows as
they arrive. --reference-id finds a payment by its order number by walking the pages.`,
		Example: `  bnpl payments list
  bnpl payments list --status closed --since 7d
  bnpl payments list --all -o jsonl > payments.jsonl
  bnpl payments list --reference-id ORDER-1001 -o json --jq '.[0].id'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(cmd); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Status, "status", "", "only payments in this status: "+strings.Join(listStatuses, ", "))
	fl.StringVar(&opts.Since, "since", "", "created at or after: a date, an RFC 3339 time, or a duration back (24h, 7d)")
	fl.StringVar(&opts.Until, "until", "", "created at or before: a date, an RFC 3339 time, or a duration back")
	fl.IntVar(&opts.Limit, "limit", api.MaxPageLimit, "payments per page, 1 to 20")
	fl.IntVar(&opts.Offset, "offset", 0, "zero-based position of the first payment")
	fl.BoolVar(&opts.All, "all", false, "walk every page")
	fl.StringVar(&opts.ReferenceID, "reference-id", "", "only the payments with this order reference (walks the pages)")
	return cmd
}

func (o *ListOptions) validate(cmd *cobra.Command) error {
	if o.Status != "" {
		o.Status = strings.ToLower(o.Status)
		ok := false
		for _, s := range listStatuses {
			ok = ok || s == o.Status
		}
		if !ok {
			return cmdutil.UsageHint("valid statuses: "+strings.Join(listStatuses, ", "), "invalid --status %q", o.Status)
		}
	}
	if o.Limit < 1 {
		return cmdutil.Usagef("--limit must be between 1 and %d, got %d", api.MaxPageLimit, o.Limit)
	}
	if o.Limit > api.MaxPageLimit {
		// The service caps a page at 20 and says so in pagination.limit;
		// saying it here too beats refusing a harmless request.
		if o.Notice != nil {
			o.Notice("a page holds at most %d payments: using --limit %d (--all walks every page)", api.MaxPageLimit, api.MaxPageLimit)
		}
		o.Limit = api.MaxPageLimit
	}
	if o.Offset < 0 {
		return cmdutil.Usagef("--offset must be 0 or more, got %d", o.Offset)
	}
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
	if o.ReferenceID != "" {
		o.All = true
	}
	return nil
}

func listRun(ctx context.Context, o *ListOptions) error {
	printer, err := o.Printer()
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	params := api.ListPaymentsParams{
		Status:       o.Status,
		CreatedAtGTE: o.Since,
		CreatedAtLTE: o.Until,
		Limit:        o.Limit,
		Offset:       o.Offset,
	}
	if !o.All {
		page, err := client.ListPayments(ctx, params)
		if err != nil {
			return err
		}
		recs := make([]json.RawMessage, 0, len(page.Payments))
		for i := range page.Payments {
			recs = append(recs, page.Payments[i].Raw())
		}
		if err := printer.List(ListColumns, recs); err != nil {
			return err
		}
		o.remember(page.Payments)
		return nil
	}
	// Walk every page, printing as pages arrive: memory stays one page deep
	// however many payments there are.
	stream := printer.Stream(ListColumns)
	params.Limit = api.MaxPageLimit
	// Only the newest are remembered, so memory stays flat however long the walk.
	var newest []recent.Entry
	for {
		page, err := client.ListPayments(ctx, params)
		if err != nil {
			stream.Close()
			return err
		}
		for i := range page.Payments {
			p := &page.Payments[i]
			if o.ReferenceID != "" && (p.Order == nil || p.Order.ReferenceID != o.ReferenceID) {
				continue
			}
			if err := stream.Write(p.Raw()); err != nil {
				return err
			}
			if len(newest) < recent.Max {
				newest = append(newest, recentEntry(p))
			}
		}
		stream.Flush()
		params.Offset += len(page.Payments)
		if len(page.Payments) == 0 || (page.Pagination.TotalCount > 0 && params.Offset >= page.Pagination.TotalCount) {
			break
		}
	}
	if err := stream.Close(); err != nil {
		return err
	}
	if o.Seen != nil && len(newest) > 0 {
		o.Seen(newest...)
	}
	return nil
}

func (o *ListOptions) remember(payments []api.Payment) {
	if o.Seen == nil || len(payments) == 0 {
		return
	}
	entries := make([]recent.Entry, 0, len(payments))
	for i := range payments {
		entries = append(entries, recentEntry(&payments[i]))
	}
	o.Seen(entries...)
}
