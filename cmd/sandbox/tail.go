package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// listing is --follow, --interval, --limit and --all, shared by the verbs
// that print a record of the sandbox, newest first, and can keep printing it.
type listing struct {
	Follow   bool
	Interval time.Duration
	Limit    int
	All      bool
}

// defaultListLimit is how many records a list shows without --limit.
const defaultListLimit = 100

// pageLimit is the most the sandbox answers in one call.
const pageLimit = 1000

func (o *listing) register(f *cmdutil.Factory, fl *pflag.FlagSet, what string) {
	fl.BoolVarP(&o.Follow, "follow", "f", false, "keep printing new "+what+" until Ctrl-C")
	// One letter, one meaning: -f is --field of bnpl api.
	f.DeprecateShort(fl, "follow", "use --follow (-f is --field of bnpl api)")
	fl.DurationVar(&o.Interval, "interval", time.Second, "time between reads with --follow")
	fl.IntVarP(&o.Limit, "limit", "L", defaultListLimit, "show at most this many of the latest "+what)
	fl.BoolVar(&o.All, "all", false, "show every one of the "+what+" kept")
}

// command makes cmd a listing of the sandbox's records (what names them:
// "requests"): the listing's flags, and a run that prints what spec says
// to list once it has checked the command's own flags.
func (o *listing) command(f *cmdutil.Factory, cmd *cobra.Command, what string, spec func(cmd *cobra.Command) (tailSpec, error)) *cobra.Command {
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		s, err := spec(cmd)
		if err != nil {
			return err
		}
		return o.tail(cmd, f, s)
	}
	o.register(f, cmd.Flags(), what)
	return cmd
}

// tailSpec is what a listing prints: the endpoint, the field holding the
// records, the query, the columns, what the records are called (the noun
// of "no requests match"), the filters in words, and the statuses listed
// when no filter names one (the scope "no requests match" gives then).
type tailSpec struct {
	path, field string
	q           url.Values
	cols        func(ios *output.IOStreams, format string) []output.Column
	noun        string
	filters     []string
	statuses    string
}

// tail checks the flags and prints the records (see tail below).
func (o *listing) tail(cmd *cobra.Command, f *cmdutil.Factory, spec tailSpec) error {
	if o.Interval <= 0 {
		return cmdutil.Usagef("--interval must be positive, got %s", o.Interval)
	}
	if o.Limit < 1 {
		return cmdutil.Usagef("--limit must be at least 1, got %d", o.Limit)
	}
	if o.All && o.Follow {
		return cmdutil.UsageHint("--follow starts from the latest --limit N and prints what comes after",
			"--all and --follow cannot be used together")
	}
	if o.All && cmd.Flags().Changed("limit") {
		return cmdutil.Usagef("--all and --limit cannot be used together")
	}
	want := o.Limit
	if o.All {
		want = 0
	}
	return tail(cmd.Context(), f, spec, want, o.Follow, o.Interval)
}

// tail prints what a list endpoint of the sandbox answers, newest first:
// the latest want records (every one when want is 0), a page of at most
// pageLimit at a time, saying on stderr when they are not all there are.
// With follow it prints the latest want in arrival order (oldest first,
// so that the list reads down), then polls the endpoint with the cursor
// it answered until ctx ends.
func tail(ctx context.Context, f *cmdutil.Factory, spec tailSpec, want int, follow bool, every time.Duration) error {
	// A list ends and may be paged; a followed one never ends.
	newPrinter := f.PagedPrinter
	if follow {
		newPrinter = f.Printer
	}
	printer, err := newPrinter()
	if err != nil {
		return err
	}
	t := &tailer{ctx: ctx, f: f, spec: spec, stream: printer.Stream(spec.cols(f.IO, printer.Format()))}
	err = t.latest(want, follow)
	if err == nil && follow {
		err = t.follow(every)
	}
	if closeErr := t.stream.Close(); err == nil {
		err = closeErr
	}
	return err
}

// tailer prints the records of one listing.
type tailer struct {
	ctx    context.Context
	f      *cmdutil.Factory
	spec   tailSpec
	stream *output.Stream
	cursor int64 // where following goes on from
}

// tailPage is one answer of a list endpoint.
type tailPage struct {
	recs   []json.RawMessage
	cursor int64
	total  int   // -1 when not answered
	oldest int64 // the smallest seq of recs, where the next page starts
}

// get reads one page of the endpoint with the query's filters and q.
func (t *tailer) get(q url.Values) (tailPage, error) {
	pg := tailPage{total: -1}
	raw, err := sandboxCall(t.ctx, t.f, http.MethodGet, t.spec.path, q, nil)
	if err != nil {
		return pg, err
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		return pg, fmt.Errorf("sandbox answered something unexpected: %w", err)
	}
	if err := json.Unmarshal(body[t.spec.field], &pg.recs); err != nil {
		return pg, fmt.Errorf("sandbox answered something unexpected: %w", err)
	}
	_ = json.Unmarshal(body["cursor"], &pg.cursor)
	if total, ok := body["total"]; ok {
		_ = json.Unmarshal(total, &pg.total)
	}
	for _, r := range pg.recs {
		var k struct {
			Seq int64 `json:"seq"`
		}
		if json.Unmarshal(r, &k) == nil && (pg.oldest == 0 || k.Seq < pg.oldest) {
			pg.oldest = k.Seq
		}
	}
	return pg, nil
}

// query is a copy of the listing's filters.
func (t *tailer) query() url.Values {
	q := url.Values{}
	for k, v := range t.spec.q {
		q[k] = v
	}
	return q
}

func (t *tailer) write(recs []json.RawMessage) error {
	for _, r := range recs {
		if err := t.stream.Write(r); err != nil {
			return err
		}
	}
	return t.stream.Flush()
}

// latest prints the latest want records (every one when want is 0), page
// by page, newest first; with follow, oldest first once all are read.
func (t *tailer) latest(want int, follow bool) error {
	shown, total := 0, -1
	var held []json.RawMessage // with follow: the pages, printed oldest first
	for q := t.query(); ; {
		n := pageLimit
		if want > 0 {
			n = min(n, want-shown)
		}
		q.Set("limit", strconv.Itoa(n))
		pg, err := t.get(q)
		if err != nil {
			return err
		}
		if total < 0 {
			total, t.cursor = pg.total, pg.cursor
		}
		shown += len(pg.recs)
		if follow {
			held = append(held, pg.recs...)
		} else if err := t.write(pg.recs); err != nil {
			return err
		}
		if len(pg.recs) < n || (want > 0 && shown >= want) || pg.oldest <= 0 {
			break
		}
		q.Set("before", strconv.FormatInt(pg.oldest, 10))
	}
	slices.Reverse(held)
	if err := t.write(held); err != nil {
		return err
	}
	t.tell(shown, total)
	return nil
}

// tell says on stderr when nothing matched, in the one form of every list
// ("no payments match (status authorized/closed)"), or that not every
// record was shown.
func (t *tailer) tell(shown, total int) {
	switch {
	case shown == 0:
		scope := t.spec.filters
		if !slices.ContainsFunc(scope, func(f string) bool { return strings.HasPrefix(f, "status ") }) {
			scope = append([]string{t.spec.statuses}, scope...)
		}
		t.f.Noticef("no %s match (%s)", t.spec.noun, strings.Join(scope, ", "))
	case total > shown:
		t.f.Noticef("showing %d of %d; --all for every one, or --limit %d", shown, total, total)
	}
}

// follow prints each new record as the endpoint answers it after the
// cursor, every interval, until ctx ends (ErrInterrupted).
func (t *tailer) follow(every time.Duration) error {
	t.f.Noticef("following; Ctrl-C to stop")
	for {
		select {
		case <-t.ctx.Done():
			return cmdutil.ErrInterrupted
		case <-time.After(every):
		}
		next := t.query()
		next.Set("after", strconv.FormatInt(t.cursor, 10))
		pg, err := t.get(next)
		if err != nil {
			if errors.Is(err, context.Canceled) || t.ctx.Err() != nil {
				return cmdutil.ErrInterrupted
			}
			return err
		}
		if err := t.write(pg.recs); err != nil {
			return err
		}
		t.cursor = max(t.cursor, pg.cursor)
	}
}
