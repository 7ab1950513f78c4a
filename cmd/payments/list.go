package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/recent"
	"github.com/bnpl-cli/bnpl/internal/walk"
)

// Statuses the list filter takes: three API statuses and four dashboard ones.
var listStatuses = []string{"authorized", "closed", "rejected", "new", "captured", "refunded", "cancelled"}

// tableStatuses maps the statuses tables show to the filter that lists
// them: a CREATED payment is "new" to the filter, an EXPIRED one is among
// the "cancelled".
var tableStatuses = map[string]string{"created": "new", "expired": "cancelled"}

// searchStatuses are the filters a search walks to see every status once:
// the default set (authorized and closed), then the ones it leaves out.
// "cancelled" also holds closed payments with nothing captured, which the
// default set has shown already; only its expired ones are new.
var searchStatuses = []string{"", "rejected", "new", "cancelled"}

// MaxListConcurrency bounds --concurrency.
const MaxListConcurrency = 16

// ListOptions are the inputs of `payments list`.
type ListOptions struct {
	Status      string
	Since       string
	Until       string
	Limit       int
	Offset      int
	All         bool
	ReferenceID string
	Buyer       string
	Concurrency int

	// allAsked is --all given by the user (a search sets All itself).
	allAsked bool
	// statusNote is what a table word of --status was mapped to.
	statusNote string

	Now     func() time.Time
	Notice  func(format string, args ...any)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	// IO tells whether stdout and stderr are terminals; progress is drawn
	// on stderr when it is one, unless Quiet. nil: neither is.
	IO    *output.IOStreams
	Quiet bool
	// Seen remembers the newest printed payments for shell completion;
	// nil skips.
	Seen func(...recent.Entry)
}

func newListCmd(f *cmdutil.Factory, run func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Client: f.Client, Printer: f.Printer, Now: time.Now, Notice: f.Noticef, Seen: recent.Recorder(f.Getenv),
		IO: f.IO, Quiet: f.Global.Quiet}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List payments, newest first",
		Long: `List payments, newest first. Without --status the service answers authorized and
closed payments; the statuses tables show are accepted too (created lists the service's
"new", expired its "cancelled"). A page holds at most 20, and stderr says when there are
more; --all walks every page, --concurrency pages at a time, and prints rows in order as
they arrive.

--reference-id finds a payment by its order number and --buyer by its buyer's email or
phone (matched here: the service has no such filter). Both search every status unless
--status narrows them; --reference-id stops at the first match unless --all asks for
every one, --buyer reads to the end. A terminal shows the pages read while they search.`,
		Example: `  bnpl payments list
  bnpl payments list --status closed --since 7d
  bnpl payments list --all -o jsonl > payments.jsonl
  bnpl payments list --reference-id ORDER-1001 -o json --jq '.[0].id'
  bnpl payments list --buyer customer@example.com`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.allAsked = cmd.Flags().Changed("all")
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
	fl.StringVar(&opts.Status, "status", "", "only payments in this status: "+strings.Join(listStatuses, ", ")+" (or created, expired)")
	fl.StringVar(&opts.Since, "since", "", "created at or after: a date, an RFC 3339 time, or a duration back (24h, 7d)")
	fl.StringVar(&opts.Until, "until", "", "created at or before: a date, an RFC 3339 time, or a duration back")
	fl.IntVar(&opts.Limit, "limit", api.MaxPageLimit, "payments per page, 1 to 20")
	fl.IntVar(&opts.Offset, "offset", 0, "zero-based position of the first payment")
	fl.BoolVar(&opts.All, "all", false, "walk every page (with --reference-id: every match, not the first)")
	fl.StringVar(&opts.ReferenceID, "reference-id", "", "find the payments with this order number (every status; walks the pages)")
	fl.StringVar(&opts.Buyer, "buyer", "", "find the payments of the buyer with this email or phone (every status; walks the pages)")
	fl.IntVar(&opts.Concurrency, "concurrency", walk.DefaultConcurrency, fmt.Sprintf("pages read at once by --all and searches, 1 to %d", MaxListConcurrency))
	return cmd
}

func (o *ListOptions) validate(cmd *cobra.Command) error {
	if o.Status != "" {
		o.Status = strings.ToLower(strings.TrimSpace(o.Status))
		if to, ok := tableStatuses[o.Status]; ok {
			o.statusNote = fmt.Sprintf("--status %s: the service lists these as %q", o.Status, to)
			if to == "cancelled" {
				o.statusNote += " (which also holds closed payments with nothing captured)"
			}
			o.Status = to
		}
		if !slices.Contains(listStatuses, o.Status) {
			return cmdutil.UsageHint("valid statuses: "+strings.Join(listStatuses, ", ")+" (or created, expired)", "invalid --status %q", o.Status)
		}
	}
	if o.Limit < 1 {
		return cmdutil.Usagef("--limit must be between 1 and %d, got %d", api.MaxPageLimit, o.Limit)
	}
	if o.Concurrency < 1 || o.Concurrency > MaxListConcurrency {
		return cmdutil.Usagef("--concurrency must be between 1 and %d, got %d", MaxListConcurrency, o.Concurrency)
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
	o.ReferenceID = strings.TrimSpace(o.ReferenceID)
	o.Buyer = strings.TrimSpace(o.Buyer)
	if cmd.Flags().Changed("reference-id") && o.ReferenceID == "" {
		return cmdutil.Usagef("--reference-id needs an order number")
	}
	if cmd.Flags().Changed("buyer") && o.Buyer == "" {
		return cmdutil.Usagef("--buyer needs an email or a phone number")
	}
	if o.Buyer != "" && !strings.Contains(o.Buyer, "@") && len(digits(o.Buyer)) < minPhoneDigits {
		return cmdutil.UsageHint("give a whole email (name@example.com) or a phone number of at least 7 digits",
			"--buyer %q is neither an email nor a phone number", o.Buyer)
	}
	if o.searching() {
		o.All = true
	}
	return nil
}

// searching is true for a search (the rows are matched here).
func (o *ListOptions) searching() bool { return o.ReferenceID != "" || o.Buyer != "" }

// minPhoneDigits is the fewest digits --buyer takes as a phone number.
const minPhoneDigits = 7

func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// matches tells whether a payment is one the search looks for.
func (o *ListOptions) matches(p *api.Payment) bool {
	if o.ReferenceID != "" && (p.Order == nil || p.Order.ReferenceID != o.ReferenceID) {
		return false
	}
	if o.Buyer != "" {
		if p.Buyer == nil {
			return false
		}
		if strings.Contains(o.Buyer, "@") {
			return strings.EqualFold(strings.TrimSpace(p.Buyer.Email), o.Buyer)
		}
		// A phone matches when its digits are the same, or when one ends
		// with the other (a number written without its country code, or
		// with the national 0 in its place).
		want, have := strings.TrimLeft(digits(o.Buyer), "0"), strings.TrimLeft(digits(p.Buyer.Phone), "0")
		return len(have) >= minPhoneDigits && (strings.HasSuffix(have, want) || strings.HasSuffix(want, have))
	}
	return true
}

func (o *ListOptions) params() api.ListPaymentsParams {
	return api.ListPaymentsParams{
		Status:       o.Status,
		CreatedAtGTE: o.Since,
		CreatedAtLTE: o.Until,
		Limit:        o.Limit,
		Offset:       o.Offset,
	}
}

// describe says which payments a list asked for, for the messages of an
// empty result: "status authorized/closed, created before 2020-01-01".
func (o *ListOptions) describe(status string) string {
	var parts []string
	switch {
	case status == "" && o.searching() && o.Status == "":
		parts = append(parts, "all statuses")
	case status == "":
		parts = append(parts, "status authorized/closed")
	default:
		parts = append(parts, "status "+status)
	}
	if o.Since != "" {
		parts = append(parts, "created after "+output.FilterTime(o.Since))
	}
	if o.Until != "" {
		parts = append(parts, "created before "+output.FilterTime(o.Until))
	}
	return strings.Join(parts, ", ")
}

// shortTime drops a midnight's time of day from a --since/--until value.
func listRun(ctx context.Context, o *ListOptions) error {
	printer, err := o.Printer()
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	if o.statusNote != "" && o.Notice != nil {
		o.Notice("%s", o.statusNote)
	}
	if !o.All {
		return o.onePage(ctx, client, printer)
	}
	return o.walkAll(ctx, client, printer)
}

// onePage prints one page and says on stderr what it left out.
func (o *ListOptions) onePage(ctx context.Context, client *api.Client, printer *output.Printer) error {
	page, err := client.ListPayments(ctx, o.params())
	if err != nil {
		return err
	}
	recs := make([]json.RawMessage, 0, len(page.Payments))
	for i := range page.Payments {
		recs = append(recs, page.Payments[i].Raw())
	}
	total := page.Pagination.TotalCount
	if len(recs) > 0 || o.printsEmpty(printer) {
		if err := printer.List(ListColumns, recs); err != nil {
			return err
		}
	}
	o.remember(page.Payments)
	if o.Notice == nil {
		return nil
	}
	switch next := o.Offset + len(recs); {
	case len(recs) == 0 && total > 0:
		o.Notice("no payments from offset %d: %d match (%s)", o.Offset, total, o.describe(o.Status))
	case len(recs) == 0:
		o.Notice("no payments match (%s)", o.describe(o.Status))
	case next < total:
		o.Notice("showing %d of %d; --all for every one, or --offset %d", len(recs), total, next)
	}
	return nil
}

// printsEmpty is whether an empty list still prints: JSON prints [] and a
// table its header on a terminal; piped text formats print nothing.
func (o *ListOptions) printsEmpty(printer *output.Printer) bool {
	return printer.IsJSON() || (o.IO != nil && o.IO.IsStdoutTTY())
}

// walkAll walks every page (or searches), printing as rows are known.
func (o *ListOptions) walkAll(ctx context.Context, client *api.Client, printer *output.Printer) error {
	var stream *output.Stream
	open := func() *output.Stream {
		if stream == nil {
			stream = printer.Stream(ListColumns)
		}
		return stream
	}
	if o.printsEmpty(printer) {
		open()
	}
	progress := cmdutil.NewProgress(o.IO, o.Quiet)
	defer progress.Clear()
	// Only the newest are remembered, so memory stays flat however long the walk.
	var newest []recent.Entry
	searched, printed := 0, 0
	statuses := []string{o.Status}
	if o.searching() && o.Status == "" {
		statuses = searchStatuses
	}
	// A search for one order stops at its first match. It walks the
	// status sets at once, so a CREATED order is found as soon as one
	// whose payment is AUTHORIZED: support is asked about both. Every
	// other walk goes set by set, in the service's order.
	firstOnly := o.ReferenceID != "" && !o.allAsked && len(statuses) > 1
	var mu sync.Mutex // one row printed at a time when sets run at once
	found := false
	walkSet := func(ctx context.Context, status string, concurrency int, stop context.CancelFunc) error {
		params := o.params()
		params.Status = status
		params.Limit = api.MaxPageLimit
		w := &walk.Walker{
			Fetch:       paymentPages(client, params),
			Start:       o.Offset,
			PageSize:    api.MaxPageLimit,
			Concurrency: concurrency,
		}
		if o.searching() {
			label := "every status"
			if o.Status != "" {
				label = "status " + o.Status
			}
			if !firstOnly {
				w.Progress = func(read, total int) { progress.Show("searching %s: page %d of %d", label, read, total) }
			}
		} else if o.IO != nil && !o.IO.IsStdoutTTY() {
			w.Progress = func(read, total int) { progress.Show("page %d of %d", read, total) }
		}
		return w.Walk(ctx, func(it walk.Item) (bool, error) {
			var p api.Payment
			if err := json.Unmarshal(it.Raw, &p); err != nil {
				return false, err
			}
			mu.Lock()
			defer mu.Unlock()
			if found {
				return false, nil
			}
			if status == "cancelled" && o.searching() && o.Status == "" && p.Status != api.StatusExpired {
				return true, nil // a closed one: the default set showed it
			}
			searched++
			if !o.matches(&p) {
				return true, nil
			}
			progress.Clear()
			s := open()
			if err := s.Write(it.Raw); err != nil {
				return false, err
			}
			printed++
			if o.searching() {
				if err := s.Flush(); err != nil {
					return false, err
				}
			}
			if len(newest) < recent.Max {
				newest = append(newest, recentEntry(&p))
			}
			if firstOnly {
				found = true
				stop() // the first match is what was asked for
				return false, nil
			}
			return true, nil
		})
	}
	if firstOnly {
		progress.Show("searching every status for order %s", o.ReferenceID)
		setCtx, stop := context.WithCancel(ctx)
		defer stop()
		errs := make(chan error, len(statuses))
		per := max(1, o.Concurrency/len(statuses))
		for _, status := range statuses {
			go func() { errs <- walkSet(setCtx, status, per, stop) }()
		}
		var first error
		for range statuses {
			if err := <-errs; err != nil && first == nil && !(found && errors.Is(err, context.Canceled)) {
				first = err
			}
		}
		if first != nil {
			return first
		}
	} else {
		for _, status := range statuses {
			if err := walkSet(ctx, status, o.Concurrency, func() {}); err != nil {
				// On an error the stream is left unclosed: closing would
				// print a tidy "]" that a careless script could take for a
				// whole list. The exit code says it is not.
				return err
			}
		}
	}
	progress.Clear()
	if stream != nil {
		if err := stream.Close(); err != nil {
			return err
		}
	}
	if o.Seen != nil && len(newest) > 0 {
		o.Seen(newest...)
	}
	if printed == 0 && o.Notice != nil {
		scope := o.describe(o.Status)
		switch {
		case o.ReferenceID != "":
			o.Notice("no payment with order number %s (searched %d payments, %s)", o.ReferenceID, searched, scope)
		case o.Buyer != "":
			o.Notice("no payment of buyer %s (searched %d payments, %s)", o.Buyer, searched, scope)
		default:
			o.Notice("no payments match (%s)", scope)
		}
	}
	return nil
}

// paymentPages reads the pages of one payments list for the walker.
func paymentPages(client *api.Client, params api.ListPaymentsParams) walk.Fetch {
	return func(ctx context.Context, offset, limit int) (walk.Page, error) {
		p := params
		p.Offset, p.Limit = offset, limit
		page, err := client.ListPayments(ctx, p)
		if err != nil {
			return walk.Page{}, err
		}
		items := make([]walk.Item, len(page.Payments))
		for i := range page.Payments {
			pay := &page.Payments[i]
			items[i] = walk.Item{ID: pay.ID, Raw: pay.Raw()}
			if pay.CreatedAt != nil {
				items[i].Time = *pay.CreatedAt
			}
		}
		return walk.Page{Items: items, Total: page.Pagination.TotalCount}, nil
	}
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
