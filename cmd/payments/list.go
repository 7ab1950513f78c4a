package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/paysearch"
	"github.com/bnpl-cli/bnpl/internal/recent"
	"github.com/bnpl-cli/bnpl/internal/walk"
)

// statusWords are the words --status takes, as a support agent says them:
// the statuses tables show and the service's dashboard statuses.
var statusWords = []string{"authorized", "closed", "rejected", "created", "expired", "captured", "refunded", "cancelled", "new"}

// tableStatuses maps the statuses tables show to the filter that lists
// them: a CREATED payment is "new" to the filter; the EXPIRED ones are
// among the "cancelled", which the walk reads and keeps only them of.
var tableStatuses = map[string]string{"created": "new", "expired": "cancelled"}

// statusHelp explains --status to a person: the words tables show, and
// what the service's dashboard statuses hold.
const statusHelp = `--status takes the statuses tables show and the service's dashboard statuses:

  authorized   approved; waiting to be captured or closed
  closed       final: captured in full, or closed
  rejected     the customer was rejected at checkout
  created      a checkout not finished yet (the dashboard's "new")
  expired      EXPIRED: the customer cancelled, or did not finish in time; read
               from the dashboard's "cancelled", keeping only these
  captured     dashboard: has a capture and is not refunded in full
  refunded     dashboard: has a refund
  cancelled    dashboard: expired, a checkout left unfinished past its time, or
               closed with nothing captured
  new          dashboard: the same as created

--status may be given more than once (or as a comma-separated list): the sets are
walked one after the other, every page of each, and a payment in two of them is
listed in each.`

// MaxListConcurrency bounds --concurrency.
const MaxListConcurrency = 16

// ListOptions are the inputs of `payments list`.
type ListOptions struct {
	// Statuses are the --status filters; none is the service's default
	// set (authorized and closed).
	Statuses []string
	Since    string
	Until    string
	Limit    int
	Offset   int
	All      bool
	// Order is an order number to find (--order).
	Order       string
	Buyer       string
	Concurrency int

	buyer paysearch.Buyer

	// allAsked is --all given by the user (a search sets All itself).
	allAsked bool
	// limitAsked is --limit given by the user: then it caps every list,
	// a walk too, at Limit rows.
	limitAsked bool
	// asked are the --status words as given; onlyExpired: expired was
	// asked for and cancelled was not, so of the service's "cancelled"
	// only the EXPIRED payments are listed.
	asked       []string
	onlyExpired bool

	ReadDeps
	// Seen remembers the newest printed payments for shell completion;
	// nil skips.
	Seen func(...recent.Entry)
}

func newListCmd(f *cmdutil.Factory, run func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{ReadDeps: newReadDeps(f, f.PagedPrinter), Seen: recent.Recorder(f.Getenv)}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List payments, newest first",
		Long: `List payments, newest first. Without --status the service answers authorized and
closed payments. --limit N lists N rows (20 by default), reading as many pages as
it takes (the service answers at most 20 a page), and stderr says when there are more;
--all walks every page, --concurrency pages at a time, and prints rows in order as they
arrive. --limit caps a walk of several statuses and a search too.

` + statusHelp + `

--order finds a payment by the merchant's order number and --buyer by its buyer: a name
or part of one, part of an email, or part of a phone number (matched here, as the
service has no such filter). --buyer ignores case, accents and, in Arabic, tashkeel,
tatweel and the spelling of alef, yeh and teh marbuta ("فاطمه" finds "فاطمة", "احمد"
finds "أحمد"); a phone is matched by its digits, Arabic-Indic ones included, with a
leading 0 or the country code left out. Both search every status unless --status
narrows them; --order stops at the first match unless --all asks for every one,
--buyer reads to the end. A terminal shows the pages read while they search.

Every command that takes a payment id also takes order:REF, the payment of order
number REF (bnpl payments get order:ORDER-1001).`,
		Example: `  bnpl payments list
  bnpl payments list --status closed --since 7d
  bnpl payments list --all -o jsonl > payments.jsonl
  bnpl payments list --status new --status rejected
  bnpl payments list --order ORDER-1001 -o json --jq '.[0].id'
  bnpl payments list --buyer customer@example.com
  bnpl payments list --buyer "فاطمة"`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.bind(f)
			opts.allAsked = cmd.Flags().Changed("all")
			opts.limitAsked = cmd.Flags().Changed("limit")
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
	fl.StringSliceVar(&opts.Statuses, "status", nil, "only payments in this status, repeatable: "+strings.Join(statusWords, ", "))
	fl.StringVar(&opts.Since, "since", "", "created at or after: a date, an RFC 3339 time, or a duration back (24h, 7d)")
	fl.StringVar(&opts.Until, "until", "", "created at or before: a date, an RFC 3339 time, or a duration back")
	fl.IntVarP(&opts.Limit, "limit", "L", api.MaxPageLimit, "list at most this many payments, reading the pages it takes")
	fl.IntVar(&opts.Offset, "offset", 0, "zero-based position of the first payment")
	fl.BoolVar(&opts.All, "all", false, "walk every page (with --order: every match, not the first)")
	fl.StringVar(&opts.Order, "order", "", "find the payments with this order number (every status; walks the pages)")
	fl.StringVar(&opts.Order, "reference-id", "", "find the payments with this order number")
	f.Deprecate(fl, "reference-id", "use --order (--reference-id is the idempotency key of capture and refund)")
	fl.StringVar(&opts.Buyer, "buyer", "", "find the payments of a buyer by name, or part of an email or phone (every status; walks the pages)")
	fl.IntVar(&opts.Concurrency, "concurrency", walk.DefaultConcurrency, fmt.Sprintf("pages read at once by --all and searches, 1 to %d", MaxListConcurrency))
	return cmd
}

func (o *ListOptions) validate(cmd *cobra.Command) error {
	if err := o.takeStatuses(); err != nil {
		return err
	}
	if o.Limit < 1 {
		return cmdutil.Usagef("--limit must be at least 1, got %d", o.Limit)
	}
	if o.allAsked && o.limitAsked {
		return cmdutil.UsageHint("--limit N lists N payments, --all every one", "--all and --limit cannot be used together")
	}
	if o.Concurrency < 1 || o.Concurrency > MaxListConcurrency {
		return cmdutil.Usagef("--concurrency must be between 1 and %d, got %d", MaxListConcurrency, o.Concurrency)
	}
	if o.Offset < 0 {
		return cmdutil.Usagef("--offset must be 0 or more, got %d", o.Offset)
	}
	if err := cmdutil.NormalizeTimeRange(&o.Since, &o.Until, o.Now()); err != nil {
		return err
	}
	o.Order = strings.TrimSpace(o.Order)
	o.Buyer = strings.TrimSpace(o.Buyer)
	if (cmd.Flags().Changed("order") || cmd.Flags().Changed("reference-id")) && o.Order == "" {
		return cmdutil.Usagef("--order needs an order number")
	}
	if cmd.Flags().Changed("buyer") {
		b, ok := paysearch.NewBuyer(o.Buyer)
		if !ok {
			return cmdutil.UsageHint("give a name, or part of an email or a phone number", "--buyer needs something to match")
		}
		o.buyer = b
	}
	// More rows than a page holds are read page by page, as --all reads.
	if o.searching() || o.onlyExpired || len(o.Statuses) > 1 || o.limitAsked && o.Limit > api.MaxPageLimit {
		o.All = true
	}
	return nil
}

// takeStatuses turns the --status words into the service's filters: a
// word tables show is read from the filter that holds it, and expired
// alone keeps only the EXPIRED payments of "cancelled".
func (o *ListOptions) takeStatuses() error {
	var statuses []string
	expired, cancelled := false, false
	for _, word := range o.Statuses {
		word = strings.ToLower(strings.TrimSpace(word))
		if !slices.Contains(statusWords, word) {
			return cmdutil.UsageHint(cmdutil.DidYouMean(word, statusWords)+"valid statuses: "+strings.Join(statusWords, ", ")+"; see bnpl payments list --help", "invalid --status %q", word)
		}
		o.asked = append(o.asked, word)
		expired = expired || word == "expired"
		cancelled = cancelled || word == "cancelled"
		st := word
		if to, ok := tableStatuses[word]; ok {
			st = to
		}
		if !slices.Contains(statuses, st) {
			statuses = append(statuses, st)
		}
	}
	o.Statuses = statuses
	o.onlyExpired = expired && !cancelled
	return nil
}

// keeps tells whether p, read under the status filter status, is one the
// --status words asked for: of "cancelled", only the EXPIRED ones when
// expired was asked for and cancelled was not.
func (o *ListOptions) keeps(status string, p *api.Payment) bool {
	return !(o.onlyExpired && status == "cancelled" && p.Status != api.StatusExpired)
}

// shownStatuses are the --status words as given, for messages.
func (o *ListOptions) shownStatuses() []string {
	if len(o.asked) > 0 {
		return o.asked
	}
	return o.Statuses
}

// searching is true for a search (the rows are matched here).
func (o *ListOptions) searching() bool { return o.Order != "" || o.Buyer != "" }

// matches tells whether a payment is one the search looks for.
func (o *ListOptions) matches(p *api.Payment) bool {
	if o.Order != "" && (p.Order == nil || p.Order.ReferenceID != o.Order) {
		return false
	}
	if o.Buyer != "" && !o.buyer.Matches(p.Buyer) {
		return false
	}
	return true
}

func (o *ListOptions) params() api.ListPaymentsParams {
	var status string
	if len(o.Statuses) == 1 {
		status = o.Statuses[0]
	}
	return api.ListPaymentsParams{
		Status:       status,
		CreatedAtGTE: o.Since,
		CreatedAtLTE: o.Until,
		Limit:        min(o.Limit, api.MaxPageLimit),
		Offset:       o.Offset,
	}
}

// describe says which payments a list asked for, for the messages of an
// empty result: "status authorized/closed, created before 2020-01-01".
func (o *ListOptions) describe() string {
	var parts []string
	switch {
	case len(o.Statuses) == 0 && o.searching():
		parts = append(parts, "every status")
	case len(o.Statuses) == 0:
		parts = append(parts, "status authorized/closed")
	default:
		parts = append(parts, "status "+strings.Join(o.shownStatuses(), "/"))
	}
	if o.Since != "" {
		parts = append(parts, "created since "+output.FilterTime(o.Since))
	}
	if o.Until != "" {
		parts = append(parts, "created until "+output.FilterTime(o.Until))
	}
	return strings.Join(parts, ", ")
}

func listRun(ctx context.Context, o *ListOptions) error {
	printer, client, err := o.open()
	if err != nil {
		return err
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
	// The printer decides what an empty list prints (header, [] or nothing).
	if err := printer.List(ListColumns, recs); err != nil {
		return err
	}
	o.remember(page.Payments)
	if o.Notice == nil {
		return nil
	}
	switch next := o.Offset + len(recs); {
	case len(recs) == 0 && total > 0:
		o.Notice("no payments from offset %d: %d match (%s)", o.Offset, total, o.describe())
	case len(recs) == 0:
		o.Notice("no payments match (%s)", o.describe())
	case next < total:
		o.Notice("showing %d of %d; --limit N for more, --all for every one, or --offset %d", len(recs), total, next)
	}
	return nil
}

// walkAll walks every page (or searches), printing as rows are known.
func (o *ListOptions) walkAll(ctx context.Context, client *api.Client, printer *output.Printer) error {
	// Opened before the walk: an empty one still closes as the printer says
	// an empty list prints ([] or nothing).
	lw := &listWalk{o: o, client: client, stream: printer.Stream(o.columns()), progress: o.progress()}
	if o.limitAsked {
		lw.cap = o.Limit
	}
	defer lw.progress.Done()
	statuses := o.walkedStatuses()
	// "cancelled" holds closed payments with nothing captured too: when
	// closed ones are walked as well, only its expired ones are new.
	lw.closedToo = slices.Contains(statuses, "") || slices.Contains(statuses, "closed")
	// A search for one order stops at its first match. It walks the
	// status sets at once, so a CREATED order is found as soon as one
	// whose payment is AUTHORIZED: support is asked about both. Every
	// other walk goes set by set, in the service's order.
	lw.firstOnly = o.Order != "" && !o.allAsked && len(statuses) > 1
	lw.pages = make([]int, len(statuses))
	var err error
	if lw.firstOnly {
		err = lw.atOnce(ctx, statuses)
	} else {
		err = lw.inTurn(ctx, statuses)
	}
	if err != nil {
		// On an error the stream is left unclosed: closing would print a
		// tidy "]" that a careless script could take for a whole list.
		// The exit code says it is not.
		return err
	}
	lw.progress.Done()
	if err := lw.stream.Close(); err != nil {
		return err
	}
	if o.Seen != nil && len(lw.newest) > 0 {
		o.Seen(lw.newest...)
	}
	lw.sayNothingFound()
	return nil
}

// columns are the list's columns: a buyer search shows the buyer too.
func (o *ListOptions) columns() []output.Column {
	switch {
	case o.Buyer != "" && o.buyer.ByPhone():
		return BuyerColumns("phone")
	case strings.Contains(o.Buyer, "@"):
		return BuyerColumns("email")
	case o.Buyer != "":
		return BuyerColumns("name")
	}
	return ListColumns
}

// walkedStatuses are the status filters a walk reads, one after the other:
// every set for a search, else the ones asked for, else the default set.
func (o *ListOptions) walkedStatuses() []string {
	switch {
	case len(o.Statuses) == 0 && o.searching():
		return paysearch.EveryStatus
	case len(o.Statuses) == 0:
		return []string{""}
	}
	return o.Statuses
}

// listWalk is one `payments list` walk under way.
type listWalk struct {
	o         *ListOptions
	client    *api.Client
	stream    *output.Stream
	progress  *cmdutil.Progress
	closedToo bool
	firstOnly bool

	mu sync.Mutex // one row printed at a time when sets run at once
	// pages are the pages read of each status set, so that progress
	// counts up across the sets.
	pages             []int
	found             bool
	searched, printed int
	// Only the newest are remembered, so memory stays flat however long
	// the walk.
	newest []recent.Entry
	// cap is the most rows printed (--limit), 0 for no cap; more is set
	// when a row past it was read, so that stderr says the list goes on.
	cap  int
	more bool
}

// capped reports whether the walk printed all --limit asks for; a row
// that comes after that is only counted as one more.
func (lw *listWalk) capped() bool {
	if lw.cap > 0 && lw.printed >= lw.cap {
		lw.more = true
		return true
	}
	return false
}

// atOnce walks the status sets at once, until the first match.
func (lw *listWalk) atOnce(ctx context.Context, statuses []string) error {
	lw.progress.Show("searching every status for order %s", lw.o.Order)
	setCtx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make(chan error, len(statuses))
	per := max(1, lw.o.Concurrency/len(statuses))
	for i, status := range statuses {
		go func() { errs <- lw.walkSet(setCtx, i, status, per, stop) }()
	}
	var first error
	for range statuses {
		if err := <-errs; err != nil && first == nil && !(lw.found && errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	return first
}

// inTurn walks the status sets one after the other.
func (lw *listWalk) inTurn(ctx context.Context, statuses []string) error {
	for i, status := range statuses {
		if lw.more {
			return nil
		}
		if err := lw.walkSet(ctx, i, status, lw.o.Concurrency, func() {}); err != nil {
			return err
		}
	}
	return nil
}

// walkSet walks the payments of one status filter, set i of the walk.
func (lw *listWalk) walkSet(ctx context.Context, i int, status string, concurrency int, stop context.CancelFunc) error {
	o := lw.o
	params := o.params()
	params.Status = status
	params.Limit = api.MaxPageLimit
	w := &walk.Walker{
		Fetch:       paysearch.Pages(lw.client, params),
		Start:       o.Offset,
		PageSize:    api.MaxPageLimit,
		Concurrency: concurrency,
	}
	switch {
	case o.searching() || o.onlyExpired:
		w.Progress = func(read, _ int) { lw.showPages(i, read) }
	case o.IO != nil && !o.IO.IsStdoutTTY() && len(lw.pages) == 1:
		w.Progress = func(read, total int) { lw.progress.Show("page %d of %d", read, total) }
	case o.IO != nil && !o.IO.IsStdoutTTY():
		w.Progress = func(read, _ int) { lw.showPages(i, read) }
	}
	return w.Walk(ctx, func(it walk.Item) (bool, error) { return lw.row(status, it, stop) })
}

// showPages shows the pages read of every set so far: a count that only
// goes up, as the sets' totals are not all known until each starts.
func (lw *listWalk) showPages(set, read int) {
	lw.mu.Lock()
	lw.pages[set] = read
	sum := 0
	for _, n := range lw.pages {
		sum += n
	}
	lw.mu.Unlock()
	what := "listing"
	if lw.o.searching() || lw.o.onlyExpired {
		what = "searching " + lw.scope()
	}
	pages := "pages"
	if sum == 1 {
		pages = "page"
	}
	lw.progress.Show("%s: %d %s read", what, sum, pages)
}

// scope names what a search reads, for its progress line.
func (lw *listWalk) scope() string {
	label := "every status"
	if len(lw.o.Statuses) > 0 {
		label = "status " + strings.Join(lw.o.shownStatuses(), "/")
	}
	if lw.o.Order != "" {
		label += " for order " + lw.o.Order
	}
	return label
}

// row takes one payment of the walk of status: printed when it matches.
func (lw *listWalk) row(status string, it walk.Item, stop context.CancelFunc) (bool, error) {
	var p api.Payment
	if err := json.Unmarshal(it.Raw, &p); err != nil {
		return false, err
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.found {
		return false, nil
	}
	if lw.closedToo && paysearch.Repeats(status, &p) {
		return true, nil // a closed one: the default set showed it
	}
	if !lw.o.keeps(status, &p) {
		return true, nil
	}
	lw.searched++
	if !lw.o.matches(&p) {
		return true, nil
	}
	if lw.capped() {
		return false, nil
	}
	lw.progress.BeforeData()
	if err := lw.stream.Write(it.Raw); err != nil {
		return false, err
	}
	lw.printed++
	if lw.o.searching() || lw.o.onlyExpired {
		if err := lw.stream.Flush(); err != nil {
			return false, err
		}
	}
	if len(lw.newest) < recent.Max {
		lw.newest = append(lw.newest, recentEntry(&p))
	}
	if lw.firstOnly {
		lw.found = true
		stop() // the first match is what was asked for
		return false, nil
	}
	return true, nil
}

// sayNothingFound is the one line on stderr of a walk that printed no row.
func (lw *listWalk) sayNothingFound() {
	o := lw.o
	if lw.more && o.Notice != nil {
		o.Notice("showing the first %s; more match: --limit N for more, --all for every one", countOf(lw.printed, "payment"))
	}
	if lw.printed > 0 || o.Notice == nil {
		return
	}
	scope := o.describe()
	switch {
	case o.Order != "":
		o.Notice("no payment with order number %s (searched %s, %s)", o.Order, countOf(lw.searched, "payment"), scope)
	case o.Buyer != "":
		o.Notice("no payment of buyer %s (searched %s, %s)", o.Buyer, countOf(lw.searched, "payment"), scope)
	default:
		o.Notice("no payments match (%s)", scope)
	}
}

// countOf is n things, the noun in the singular for one.
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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
