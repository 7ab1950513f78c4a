package sandbox

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/httpserve"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/replay"
)

type replayOptions struct {
	File    string
	Addr    string
	Command []string
	readOptions
}

func newReplayCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay FILE.har [--addr HOST:PORT] [--ignore FILE] [-- COMMAND [ARG...]]",
		Short: "Play a recording back to the app, offline: its requests checked, answered by a sandbox",
		Long: `Play a recording made with bnpl sandbox record back to the app, with no network:
a test for CI that runs the recorded scenario for ever. replay listens on loopback
(--addr, default 127.0.0.1:8790) as the service would; point the app's base URL
at it, or give the app's command after --, which runs with BNPL_BASE_URL set to
it.

Each request of the app is matched to the first recorded request not yet made
with the same method and path (ids mapped: the app holds the sandbox's ids, the
recording the service's), checked against it (query and body, by the rules of
bnpl sandbox verify: ids and times by shape, amounts and enumerations exactly),
and answered by a fresh sandbox in memory (or the one at --sandbox-url), after
the customer's moves the recording shows before it (an approval, a rejection,
an expiry, a dispute). So the app gets consistent answers with the sandbox's
ids, and the scenario carries on where the recording would only play back.
Paths under /_sandbox/ go to the sandbox unchecked, without the app's key.
The app's key is never sent on: it stands for the recorded key of its kind, and
the sandbox gets a key of that kind (the merchant's test or live key, a key it
does not know for one the service refused, none for none). Credentials of
another kind than recorded (none for a key, a live key for a test one) are a
difference, and go to the sandbox as what they are.

A difference is a request the app made otherwise, made without it being
recorded (still answered by the sandbox), or did not make. They are listed as
bnpl sandbox verify lists them (-o json: one document), and --ignore FILE
accepts some, each with its reason. Where the sandbox answered otherwise than
the service had, replay says how often on stderr (-o json lists them under
answer_differences). The counts add up to the file's entries, as verify's do:
the requests replayed (made by the app or not), the notifications (played as
the customer's moves they show), and those left out, by reason (another host's,
the sandbox's own paths, a request the service never answered).

replay stops when the command after -- exits, or without one once the app has
made every recorded request, or at Ctrl-C or SIGTERM. Exit status: the
command's when it failed; else 15 when a difference remains, 0 when none. With
-o json (or --jq) stdout holds the report alone: the command's own stdout goes to
stderr.

The names follow the tools of the trade: record is WireMock's record and
Hoverfly's capture; replay is go-vcr's and Polly.JS's replay (Hoverfly's
simulate, WireMock's playback), with the app's requests checked against the
recording as WireMock's verify checks them; verify is Hoverfly's diff, the
recording (the real service) compared with the simulation (the sandbox).`,
		Example: `  bnpl sandbox replay checkout-flow.har -- go test ./integration/...
  bnpl sandbox replay flow.har --addr 127.0.0.1:9000 &
  bnpl sandbox replay smoke.har --ignore accepted.yaml -o json -- bnpl smoke`,
		Args: harArgs("name the recording, such as flow.har"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File, opts.Command = harFileAndCommand(cmd, args)
			if _, port, err := net.SplitHostPort(opts.Addr); err != nil || port == "" {
				return cmdutil.UsageHint("use HOST:PORT, such as 127.0.0.1:8790", "invalid --addr %q", opts.Addr)
			}
			return replayRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", DefaultRecordAddr, "address to answer the app on, HOST:PORT (port 0 picks one)")
	opts.flags(cmd)
	return cmd
}

func replayRun(ctx context.Context, f *cmdutil.Factory, o *replayOptions) error {
	rs, err := openReplay(f, o.File, o.readOptions)
	if err != nil {
		return err
	}
	defer rs.close()
	printer, rec, rules, target, name := rs.printer, rs.rec, rs.rules, rs.target, rs.name
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return cmdutil.ListenError(err, o.Addr, "--addr")
	}
	serveCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	server := replay.NewEngine(rec, target).NewServer(serveCtx)
	lim := httpserve.Limits{MaxConns: 256, MaxBodies: 32}
	srv := lim.Server(server)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lim.Listener(ln)) }()
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(f.IO.ErrOut, "replaying %s, answered by %s\n", o.File, name)
	// With -o json stdout is the report's alone: the command writes its
	// own on stderr.
	out := f.IO.Out
	if printer.IsJSON() {
		out = f.IO.ErrOut
	}
	runErr := waitFor(ctx, f, o.Command, base, out, served, server.Done())
	shutdownCtx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_ = srv.Shutdown(shutdownCtx)
	rep := server.Finish()
	rep.Sandbox = name
	rep.Differences, rep.Ignored = replay.Apply(rules, rep.Differences)
	if err := printReplay(f, printer, rep); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if len(rep.Differences) > 0 {
		return &cmdutil.Silent{Code: cmdutil.ExitDifferences}
	}
	return nil
}

func printReplay(f *cmdutil.Factory, printer *output.Printer, rep *replay.Report) error {
	cols := differenceColumns("recorded", "app")
	cols[3].Path, cols[4].Path = "recorded", "app"
	rep.Printable()
	if err := printDifferences(printer, rep, cols); err != nil {
		return err
	}
	printIgnored(f, rep, "recorded", "app")
	made := fmt.Sprintf("the app made %d of %d recorded request(s)", rep.Compared, rep.Exchanges)
	if rep.Unexpected > 0 {
		made += fmt.Sprintf(" and %d the recording lacks", rep.Unexpected)
	}
	f.Noticef("%s in %.2fs", made, rep.Seconds)
	f.Noticef("%s", entriesLine(rep, "made by the app"))
	f.Noticef("answered by %s, which played %d customer action(s)", rep.Sandbox, len(rep.Actions))
	f.Noticef("%s", foundLine(rep))
	if n := len(rep.AnswerDifferences); n > 0 {
		f.Noticef("to the app's requests as it made them, the sandbox answered otherwise than the service had to the recorded ones in %d place(s) (-o json lists them under answer_differences)", n)
	}
	return nil
}
