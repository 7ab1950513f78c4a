package sandbox

import (
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// LogsOptions are the inputs of `bnpl sandbox logs`.
type LogsOptions struct {
	listing
	Status string
	Path   string
	Since  string
}

func newLogsCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &LogsOptions{}
	cmd := opts.command(f, &cobra.Command{
		Use:   "logs [--follow] [--limit N | --all] [--status 4xx|5xx|N] [--path GLOB] [--since T]",
		Short: "Show the requests the sandbox answered, like a service's request log",
		Long: `Show the requests the sandbox answered on the service's paths (/api/...), newest
first: when, the method and path with its query, the status, the latency, the
merchant and mode (test or live) of the key, and for an error its message, which is
what to read when your integration gets a 4xx. The sandbox keeps the last 10,000
requests in its state, with the request and response bodies (at most 64 KiB each):
-o json and -o jsonl show them, with the sandbox's raw fields. Keys and webhook
header values are never kept: the key is stored masked (sk_test_****abcd), header
values masked in the bodies.

A request a fault of serve --faults touched says so in the error column (and as
fault and committed_status in JSON): whether it ran and committed before the
client got the fault's answer (500-after; drop-after, whose status is none: the
connection was dropped) or did not run at all (500-before, lock, 429).

--status takes a code (404) or a class (4xx, 5xx). --path takes a glob of the path
without its query (* stops at a /): a path without a wildcard matches as a prefix,
so /api/v2/payments finds every payment request. --since takes a date, an RFC 3339
time or a duration back from now (15m, 24h). The latest 100 requests are shown
(--limit N for another number, --all for every one kept), and stderr says how many
there are when that is not all of them. --follow prints the latest requests in
the order they were answered, then each new one as it is answered, until Ctrl-C
(which exits 130).

A sandbox started with --no-request-log keeps none.`,
		Example: `  bnpl sandbox logs
  bnpl sandbox logs --status 4xx
  bnpl sandbox logs --path '/api/v2/payments/*' --since 15m -o jsonl
  bnpl sandbox logs --follow`,
		Args: cmdutil.NoArgs,
	}, "requests", opts.spec)
	fl := cmd.Flags()
	fl.StringVar(&opts.Status, "status", "", "only this status (404) or class (4xx, 5xx)")
	fl.StringVar(&opts.Path, "path", "", "only paths matching this glob (without a wildcard: this prefix)")
	fl.StringVar(&opts.Since, "since", "", "only requests since this time (date, RFC 3339, or a duration back: 15m)")
	return cmd
}

// spec checks the filters and says which requests to list.
func (o *LogsOptions) spec(cmd *cobra.Command) (tailSpec, error) {
	q := url.Values{}
	if o.Status != "" {
		st := strings.ToLower(strings.TrimSpace(o.Status))
		if !validStatusFilter(st) {
			return tailSpec{}, cmdutil.UsageHint("use a code such as 404 or a class: 2xx, 3xx, 4xx, 5xx", "invalid --status %q", o.Status)
		}
		q.Set("status", st)
	}
	if o.Path != "" {
		if !strings.HasPrefix(o.Path, "/") && !strings.HasPrefix(o.Path, "*") {
			return tailSpec{}, cmdutil.UsageHint("paths start with /, such as /api/v2/payments/*", "invalid --path %q", o.Path)
		}
		if _, err := path.Match(o.Path, "/"); err != nil {
			return tailSpec{}, cmdutil.UsageHint("use a glob such as /api/v2/payments/*", "invalid --path %q: %v", o.Path, err)
		}
		q.Set("path", o.Path)
	}
	if o.Since != "" {
		t, err := cmdutil.ParseTimeFlag("since", o.Since, time.Now())
		if err != nil {
			return tailSpec{}, err
		}
		q.Set("since", t.Format(time.RFC3339Nano))
	}
	spec := tailSpec{path: "/_sandbox/logs", field: "entries", q: q, cols: LogColumns, noun: "requests", statuses: "every status"}
	for _, name := range []string{"status", "path", "since"} {
		if v := cmd.Flags().Lookup(name).Value.String(); v != "" {
			spec.filters = append(spec.filters, name+" "+v)
		}
	}
	return spec, nil
}

func validStatusFilter(st string) bool {
	if len(st) == 3 && st[1:] == "xx" {
		return st[0] >= '1' && st[0] <= '5'
	}
	n, err := strconv.Atoi(st)
	return err == nil && n >= 100 && n <= 599
}

// LogColumns are the columns of `sandbox logs` in format: the time of
// day (with its date where the day changes), the method and the status
// whole, the path (which holds ids) wrapped after a "/" only, and the
// error message wrapped between words, never wider than 60 cells, under
// its row when the line has no room for it; the latency and the merchant
// give way first.
func LogColumns(ios *output.IOStreams, format string) []output.Column {
	return append(dayTimeColumns(ios, format),
		// The method and status are short and a row is read by them: never cut.
		output.Column{Header: "METHOD", Path: "method", Kind: output.KindID},
		output.Column{Header: "STATUS", Kind: output.KindID, Value: func(rec map[string]any) string {
			if number(rec["status"]) == 0 {
				return "none" // the connection was dropped: no answer
			}
			return output.String(rec["status"])
		}},
		// The path holds ids: it wraps only after a "/", so an id in it
		// stays whole on one line.
		output.Column{Header: "PATH", Path: "path", Kind: output.Wrapped(output.KindID)},
		output.Column{Header: "LATENCY", Kind: output.KindReference, Value: latencyCell},
		// The message is what a 4xx is read for: free text that wraps
		// between words (an id in it whole), never cut, at most 60 cells
		// wide, under its row on a narrow terminal.
		output.Column{Header: "ERROR", Kind: output.Below(output.KindText), Value: func(rec map[string]any) string {
			if f, _ := rec["fault"].(string); f != "" {
				return faultCell(f, int(number(rec["committed_status"])))
			}
			// The message: the status says the type already, and
			// -o json has it (error_type).
			if e, _ := rec["error"].(string); e != "" {
				return e
			}
			t, _ := rec["error_type"].(string)
			return t
		}},
		output.Column{Header: "MERCHANT", Kind: output.KindReference, Value: func(rec map[string]any) string {
			m, _ := rec["merchant_code"].(string)
			if mode, _ := rec["mode"].(string); mode != "" {
				m += " (" + mode + ")"
			}
			return m
		}},
	)
}

// faultCell says what an injected fault did to a request: whether the
// request ran (and committed) before the client got the fault's answer.
func faultCell(kind string, committed int) string {
	switch {
	case kind == "drop-after":
		return fmt.Sprintf("injected fault drop-after: the request ran and committed (%d), then the connection was dropped", committed)
	case committed != 0:
		return fmt.Sprintf("injected fault %s: the request ran and committed (%d); the client got this answer instead", kind, committed)
	}
	return "injected fault " + kind + ": the request did not run"
}

// dayTimeColumns show a log record's time ("at"). In a table on a terminal, a
// record of the sandbox is read by its time of day: the TIME column shows
// it (15:04:05, with a Z in the utc style), whole, and the date with it
// (2006-01-02 15:04:05Z) on the first row and on each row whose day is not
// the day of the row above, so that rows on both sides of midnight are
// told apart; where the line is short, the date goes on a line of its own
// above the time. The relative style is one column as anywhere. Elsewhere
// the one TIME column of every view: a time in the --time style, the raw
// value when piped.
func dayTimeColumns(ios *output.IOStreams, format string) []output.Column {
	style := ios.TimeStyle()
	if format != output.FormatTable || !ios.IsStdoutTTY() || style == output.TimeRelative {
		return []output.Column{{Header: "TIME", Path: "at", Kind: output.KindTime}}
	}
	clock := "15:04:05Z"
	if style == output.TimeLocal {
		clock = "15:04:05"
	}
	day := "" // the date of the row above
	return []output.Column{{Header: "TIME", Kind: output.Wrapped(output.KindTime), Value: func(rec map[string]any) string {
		t, ok := output.ParseServiceTime(output.String(rec["at"]))
		switch {
		case !ok:
			return output.String(rec["at"])
		case style == output.TimeLocal:
			t = t.Local()
		default:
			t = t.UTC()
		}
		if d := t.Format(time.DateOnly); d != day {
			day = d
			return d + " " + t.Format(clock)
		}
		return t.Format(clock)
	}}}
}
