package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/har"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/replay"
	"github.com/bnpl-cli/bnpl/internal/secret"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

type verifyOptions struct {
	File string
	readOptions
}

// readOptions are how verify and replay read a recording.
type readOptions struct {
	Ignore     string
	MaxEntries int
	Host       string
}

func (o *readOptions) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.Ignore, "ignore", "", "a YAML file of accepted differences, each with a reason")
	cmd.Flags().IntVar(&o.MaxEntries, "max-entries", har.DefaultMaxEntries, "the most entries read from the recording")
	cmd.Flags().StringVar(&o.Host, "host", "", "the service's HOST[:PORT] in a recording of several hosts (default: the recorded target's)")
}

func newVerifyCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify FILE.har [--ignore FILE] [--sandbox-url URL]",
		Short: "Check the sandbox against a recording of the service: replay it and list every difference",
		Long: `Replay a recording made with bnpl sandbox record (the service's answers) against a
fresh sandbox, and list every place where the sandbox answers otherwise.

The recording's requests are sent in order to a sandbox in memory that applies
the service's rules (or to the one at --sandbox-url, which should be fresh:
started with --state :memory:), each with credentials of the kind it was recorded
with: none, a value that is no Bearer key, a key the sandbox does not know for one
the service refused, another region's for one the service sent to its region, or
the key (test or live) of a merchant of its own. Requests that were in flight
together are sent together. The service's ids are mapped to the
sandbox's as answers arrive (sessions, payments, captures, refunds, webhooks,
disputes, attachments). What the customer did between requests is played from
what the recording shows: a payment read AUTHORIZED after CREATED is approved in
the sandbox first, one read REJECTED or EXPIRED is rejected or abandoned, an
authorization the service calls expired is made to lapse, and a dispute no request
opened is opened (and moved to the status a read shows). -o json lists them under
"actions".

Each answer is compared with the recorded one: the HTTP status, errorType and
message, the Content-Type, the set of fields and their JSON types, enumerated
values and what the app sent echoed back (URLs and meta included), amounts as the
strings they are; ids, times, tokens and the service's URLs by shape only;
captures and refunds in order. Lists compare only what the recording made. When the
recording holds notifications (bnpl listen --record), the sandbox's notifications
about the same payments and disputes are compared too: their events, order and
payload fields.

Every difference is printed (request number, method and path, field, the
service's value and the sandbox's) as a table, or with -o json as one document
with the counts, the actions played and what could not be compared. An
--ignore FILE lists accepted differences, each with its reason (see
docs/sandbox.md); they are reported apart, each with its reason, and do not fail
the run.

Any HAR 1.2 is read, from bnpl or another tool; only the service's host is
replayed (the recorded target's, or --host), and stderr accounts for every entry
(those left out by reason). At most --max-entries entries and 1 GiB are read.

Exit status: 0 when nothing differs, 15 when something does, 2 for an unusable
recording or ignore file.`,
		Example: `  bnpl sandbox verify checkout-flow.har
  bnpl sandbox verify checkout-flow.har --ignore accepted.yaml -o json
  bnpl sandbox verify flow.har --sandbox-url http://127.0.0.1:8700`,
		Args: cmdutil.ExactArgs(1, "the recording, FILE.har"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return verifyRun(cmd.Context(), f, opts)
		},
	}
	opts.flags(cmd)
	return cmd
}

// loadRecording reads a recording, entry by entry within its bounds, and
// an --ignore file.
func loadRecording(f *cmdutil.Factory, file string, o readOptions) (*replay.Recording, []replay.Rule, error) {
	if o.MaxEntries < 1 {
		return nil, nil, cmdutil.UsageHint("give a positive number, such as --max-entries 200000", "--max-entries %d is not a number of entries", o.MaxEntries)
	}
	in, err := userfile.Open("recording", file, f.IO.In)
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	rec, err := replay.LoadFrom(file, in, replay.LoadOptions{Limits: har.Limits{MaxEntries: o.MaxEntries}, Host: o.Host})
	if err != nil {
		return nil, nil, err
	}
	var rules []replay.Rule
	if o.Ignore != "" {
		b, err := userfile.Read("--ignore", o.Ignore, f.IO.In, 1<<20)
		if err == nil {
			rules, err = replay.ParseIgnore(o.Ignore, b)
		}
		if err != nil {
			rec.Close()
			return nil, nil, err
		}
	}
	return rec, rules, nil
}

// replayTarget is the sandbox to replay against: --sandbox-url, else a
// fresh one in memory.
func replayTarget(f *cmdutil.Factory, rec *replay.Recording) (*replay.Target, string, func(), error) {
	if u := f.Global.SandboxURL; u != "" {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, "", nil, cmdutil.UsageHint("give the sandbox's base URL, such as http://127.0.0.1:8700", "--sandbox-url %q is not an http(s) URL", u)
		}
		return replay.Remote(u, f.Global.Timeout), "the sandbox at " + secret.RedactURL(u), func() {}, nil
	}
	t, closeIt, err := replay.Embedded(rec)
	if err != nil {
		return nil, "", nil, err
	}
	return t, "a fresh sandbox in memory", closeIt, nil
}

// replaySession is what verify and replay both start from: the printer,
// the recording with its accepted differences, and the sandbox that plays
// it (close it when done).
type replaySession struct {
	printer *output.Printer
	rec     *replay.Recording
	rules   []replay.Rule
	target  *replay.Target
	name    string
	close   func()
}

func openReplay(f *cmdutil.Factory, file string, o readOptions) (*replaySession, error) {
	printer, err := f.Printer()
	if err != nil {
		return nil, err
	}
	rec, rules, err := loadRecording(f, file, o)
	if err != nil {
		return nil, err
	}
	target, name, closeTarget, err := replayTarget(f, rec)
	if err != nil {
		rec.Close()
		return nil, err
	}
	closeAll := func() {
		closeTarget()
		rec.Close()
	}
	return &replaySession{printer: printer, rec: rec, rules: rules, target: target, name: name, close: closeAll}, nil
}

func verifyRun(ctx context.Context, f *cmdutil.Factory, o *verifyOptions) error {
	rs, err := openReplay(f, o.File, o.readOptions)
	if err != nil {
		return err
	}
	defer rs.close()
	rep, err := replay.NewEngine(rs.rec, rs.target).Verify(ctx)
	if err != nil {
		return err
	}
	rep.Sandbox = rs.name
	rep.Differences, rep.Ignored = replay.Apply(rs.rules, rep.Differences)
	if err := printReport(f, rs.printer, rep); err != nil {
		return err
	}
	if n := len(rep.Differences); n > 0 {
		return &cmdutil.Silent{Code: cmdutil.ExitDifferences}
	}
	return nil
}

// differenceColumns are the table of differences.
func differenceColumns(want, got string) []output.Column {
	return []output.Column{
		{Header: "#", Path: "request", Kind: output.KindPlain},
		{Header: "REQUEST", Value: func(r map[string]any) string {
			return fmt.Sprint(r["method"]) + " " + fmt.Sprint(r["path"])
		}, Kind: output.Wrapped(output.KindID)},
		{Header: "FIELD", Path: "field", Kind: output.Wrapped(output.KindID)},
		{Header: strings.ToUpper(want), Path: "service", Kind: output.Wrapped(output.KindText)},
		{Header: strings.ToUpper(got), Path: "sandbox", Kind: output.Wrapped(output.KindText)},
	}
}

// printReport prints the differences (the whole report with -o json) and
// a summary on stderr.
func printReport(f *cmdutil.Factory, printer *output.Printer, rep *replay.Report) error {
	rep.Printable()
	if err := printDifferences(printer, rep, differenceColumns("service", "sandbox")); err != nil {
		return err
	}
	printIgnored(f, rep, "service", "sandbox")
	for _, n := range rep.Skipped {
		if n.N > 0 {
			f.Noticef("not compared: #%d %s %s: %s", n.N, n.Method, n.Path, n.Why)
		} else {
			f.Noticef("not compared: %s", n.Why)
		}
	}
	// Short lines: what was replayed, what was played and compared, what
	// was found.
	f.Noticef("replayed %d of %d request(s) against %s in %.2fs", rep.Compared, rep.Exchanges, rep.Sandbox, rep.Seconds)
	f.Noticef("%s", entriesLine(rep, "compared"))
	played := fmt.Sprintf("played %d customer action(s)", len(rep.Actions))
	if rep.Notifications > 0 {
		played += fmt.Sprintf("; compared %d of %d notification(s)", rep.NotificationsCompared, rep.Notifications)
	}
	f.Noticef("%s", played)
	f.Noticef("%s", foundLine(rep))
	return nil
}

// printDifferences prints a report's differences in cols on stdout, or
// the whole report under -o json.
func printDifferences(printer *output.Printer, rep *replay.Report, cols []output.Column) error {
	if printer.IsJSON() {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		return printer.Object(b, nil)
	}
	if len(rep.Differences) == 0 {
		return nil
	}
	records := make([]json.RawMessage, 0, len(rep.Differences))
	for _, d := range rep.Differences {
		b, _ := json.Marshal(d)
		records = append(records, b)
	}
	return printer.List(cols, records)
}

// printIgnored lists on stderr each difference an --ignore rule
// accepted, with the rule's reason.
func printIgnored(f *cmdutil.Factory, rep *replay.Report, want, got string) {
	for _, d := range rep.Ignored {
		where := fmt.Sprintf("#%d ", d.N)
		if d.N == 0 {
			where = ""
		}
		f.Noticef("accepted by --ignore: %s%s %s %s (%s: %s %s, %s %s): %s", where, d.Method, d.Path, d.Field, d.Kind, want, d.Want, got, d.Got, d.Ignored)
	}
}

// entriesLine accounts for every entry of the file: the requests to the
// service (counted as compared by verify, made by the app by replay, or
// not), the notifications, and those left out by reason.
func entriesLine(rep *replay.Report, counted string) string {
	line := fmt.Sprintf("%d entries: %d request(s) to the service (%d %s, %d not), %d notification(s)",
		rep.Entries, rep.Exchanges, rep.Compared, counted, rep.Exchanges-rep.Compared, rep.Notifications)
	for _, l := range rep.LeftOut {
		line += fmt.Sprintf(", %d left out: %s", l.Count, secret.PrintableLine(l.Why))
	}
	return line
}

// foundLine says how many differences remain, and how many were accepted.
func foundLine(rep *replay.Report) string {
	found := fmt.Sprintf("%d difference(s)", len(rep.Differences))
	if n := len(rep.Ignored); n > 0 {
		found += fmt.Sprintf(", %d more accepted by --ignore", n)
	}
	return found
}
