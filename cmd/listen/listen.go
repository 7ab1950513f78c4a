// Package listen holds `bnpl listen`, a local receiver of webhook
// notifications for development and scripts.
package listen

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/clipperhouse/displaywidth"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/secret"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

// DefaultAddr is where listen accepts deliveries unless told otherwise.
const DefaultAddr = "127.0.0.1:8787"

// Options are the inputs of `bnpl listen`.
type Options struct {
	Addr           string
	HeaderTitle    string
	HeaderValueEnv string
	ForwardTo      string
	// InsecureForward allows --forward-to over plain http off this machine.
	InsecureForward bool
	Max             int
	FailFirst       int
	// Register wires listen to the sandbox for the session (default with
	// --forward-to); Events filters what is printed and forwarded.
	Register bool
	Events   []string
	events   eventFilter
	// Format is the global -o: json and jsonl give JSON lines, the others
	// a line for people; empty picks by terminal.
	Format string

	IO     *output.IOStreams
	Getenv func(string) string
	Listen func(network, addr string) (net.Listener, error)

	// What registering needs: the command's target and clients, as the
	// other commands resolve them, and the probe that tells a bnpl
	// sandbox on loopback.
	Target     func() (*config.Target, error)
	Client     func() (*api.Client, error)
	LiveClient func(what string) (*api.Client, error)
	Probe      func(ctx context.Context, base string) bool
	// Resolver looks a --forward-to host up at each forward; nil is the
	// system's.
	Resolver webhook.Resolver
	// Record is a recording to add each notification to (record.go).
	Record string
}

// listenLong is the help of `bnpl listen`.
const listenLong = `Receive payment and dispute notifications on this machine and print each as it
arrives: a line on a terminal, one JSON object per line when piped
(received_at, kind, path, id or dispute_id, payment_id, status, event, amount,
currency, verified, forward, payload). The kind, payment or dispute, is told by
the shape of the body. The event (authorized, captured, refunded, closed,
updated, rejected, expired for a payment that became EXPIRED, auth_expired for
an authorization that lapsed, or "dispute" and the dispute's status) is what a
bnpl sandbox names in its Bnpl-Sandbox-Event header, else what the body tells.

With --header-title and --header-value-env, every delivery must carry that
header with that value; others are answered 401 and reported on stderr (the
expected value is never printed). Accepted deliveries are answered 200.
--forward-to sends each accepted notification, same body and headers, on to
your own endpoint and reports its status; redirects are not followed. Each
forward goes to the address its host resolves to then (an address is itself),
and that address, not the spelling, decides what it carries: to a loopback
address every header goes; to any other, never Authorization, the webhook's
header nor the header listen checks, whatever its title: only Content-Type,
User-Agent and the Bnpl-Sandbox-* headers go. Plain http off this machine needs
--insecure-forward (without it, a target other than a loopback address or
localhost is refused at start, exit 2, and a localhost that resolves elsewhere
is not forwarded to), and a name that resolves to a private or other
special-purpose address that is not loopback is not forwarded to. When that endpoint
fails (an error, or a status other than 2xx) the sender is answered with its
status (502 for an error), so that it retries, and the notification does not
count toward --max. --max N stops after N notifications, for scripts; Ctrl-C
or SIGTERM stops too, with exit 0 (stopping is how listen ends). The last line
on stderr says how many notifications were received and how many of them
repeated a delivery received before (a duplicate, or a retry of one the sender
took for lost).

--fail-first N answers the first N deliveries that pass the checks with 500, as
a receiver that is down would, so you can watch the sender retry them. Each is
reported on stderr as failed on purpose; none is printed, forwarded or counted
toward --max.

With --forward-to (or --register), listen wires itself to the sandbox the other
commands use (the embedded sandbox, or the one BNPL_BASE_URL or the profile
names): it registers its own address as a payment webhook (in the mode of the
key) and a dispute webhook (with the live key) of the merchant in use, both
with a header whose value it makes for the session, never shows, and checks on
every delivery. It says on stderr what it registered, and removes both when it
stops (Ctrl-C, SIGTERM, --max); what a listen killed outright left behind, the
next one removes. It adds its webhooks beside the merchant's own, which keep
receiving and are never changed. It stops with exit 6 when one of its webhooks
is removed by someone else, and with exit 10 when the sandbox stops answering.
The sandbox must admit loopback receivers: run it as
bnpl sandbox serve --allow-local-webhooks (for the embedded sandbox, once: the
setting stays in its state). Against the service it registers nothing and says
how to register it by hand: the service delivers only to public https
addresses, so behind a tunnel. --register=false leaves registering to you.

--events E,... prints and forwards only those events (captured, refunded, a
dispute status...) or kinds (payment, dispute); the others are answered 200 and
passed over. The address it listens on is printed on stderr.`

// NewCmd returns `bnpl listen`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return newCmd(f, nil)
}

func newCmd(f *cmdutil.Factory, run func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Getenv: f.Getenv, Listen: net.Listen,
		Target: f.Target, Client: f.Client, LiveClient: f.LiveClient, Probe: cmdutil.ProbeSandbox}
	cmd := &cobra.Command{
		Use:   "listen [--addr HOST:PORT] [--header-title T --header-value-env VAR] [--forward-to URL] [--register] [--events E,...] [--max N] [--fail-first N]",
		Short: "Receive webhook notifications locally and print them",
		Long:  listenLong,
		Example: `  bnpl listen --forward-to http://127.0.0.1:3000/webhooks/bnpl
  bnpl listen --forward-to http://127.0.0.1:3000/webhooks/bnpl --events captured,refunded,dispute
  bnpl listen --addr 127.0.0.1:9000 --header-title X-Hook --header-value-env HOOK_SECRET
  bnpl listen --max 1 > notification.jsonl
  bnpl listen --fail-first 1 --max 1`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format = f.Global.Output
			if !cmd.Flags().Changed("register") {
				opts.Register = opts.ForwardTo != ""
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return listenRun(cmd.Context(), opts)
		},
	}
	opts.flags(cmd.Flags())
	return cmd
}

// flags registers listen's flags on fl.
func (o *Options) flags(fl *pflag.FlagSet) {
	fl.StringVar(&o.Addr, "addr", DefaultAddr, "address to listen on, HOST:PORT")
	fl.StringVar(&o.HeaderTitle, "header-title", "", "require this header on every delivery")
	fl.StringVar(&o.HeaderValueEnv, "header-value-env", "", "environment variable holding the header's expected value")
	fl.StringVar(&o.ForwardTo, "forward-to", "", "also POST each accepted notification to this URL")
	fl.BoolVar(&o.InsecureForward, "insecure-forward", false, "allow --forward-to over plain http to a host other than this machine")
	fl.IntVar(&o.Max, "max", 0, "stop after this many notifications (0: run until Ctrl-C)")
	fl.IntVar(&o.FailFirst, "fail-first", 0, "answer the first N good deliveries with 500, to watch the sender retry")
	fl.BoolVar(&o.Register, "register", false, "register this listener with the sandbox for the session, and remove it on exit (default with --forward-to)")
	fl.StringSliceVar(&o.Events, "events", nil, "print and forward only these events or kinds, comma-separated (captured,refunded,dispute,...)")
	addRecordFlag(fl, o)
}

func (o *Options) validate() error {
	if _, port, err := net.SplitHostPort(o.Addr); err != nil || port == "" {
		return cmdutil.UsageHint("use HOST:PORT, such as 127.0.0.1:8787", "invalid --addr %q", o.Addr)
	}
	switch {
	case o.HeaderTitle != "" && o.HeaderValueEnv == "":
		return cmdutil.UsageHint("the expected value is read from an environment variable, never a flag", "--header-title needs --header-value-env")
	case o.HeaderTitle == "" && o.HeaderValueEnv != "":
		return cmdutil.Usagef("--header-value-env needs --header-title")
	case o.HeaderTitle != "":
		if err := webhook.CheckHeaderTitle(o.HeaderTitle); err != nil {
			return err
		}
		// Registered for its session, it is a header bnpl does not set.
		if err := webhook.CheckOwnTitle(o.HeaderTitle); err != nil {
			return err
		}
	}
	if o.ForwardTo != "" {
		if _, err := checkForward(o.ForwardTo, o.InsecureForward); err != nil {
			return err
		}
	} else if o.InsecureForward {
		return cmdutil.Usagef("--insecure-forward needs --forward-to")
	}
	events, err := parseEvents(o.Events)
	if err != nil {
		return err
	}
	o.events = events
	if o.Max < 0 {
		return cmdutil.Usagef("--max must be 0 or more, got %d", o.Max)
	}
	if o.FailFirst < 0 {
		return cmdutil.Usagef("--fail-first must be 0 or more, got %d", o.FailFirst)
	}
	return nil
}

func (o *Options) jsonLines() bool {
	switch strings.ToLower(o.Format) {
	case output.FormatJSON, output.FormatJSONL:
		return true
	case "":
		return !o.IO.IsStdoutTTY()
	}
	return false
}

func listenRun(ctx context.Context, o *Options) error {
	// SIGTERM stops listen as Ctrl-C does, so that it cleans up after
	// itself when a supervisor or a script stops it.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	recv, err := o.receiver()
	if err != nil {
		return err
	}
	// Where to register is decided before anything listens, so that a
	// refusal leaves nothing behind.
	var sbTarget *config.Target
	var where string
	if o.Register {
		if sbTarget, where, err = o.sandboxTarget(ctx, o.Addr); err != nil {
			return err
		}
		if sbTarget != nil && o.HeaderTitle == "" {
			h, err := selfHeader()
			if err != nil {
				return err
			}
			recv.HeaderTitle, recv.HeaderValue = h.Title, h.Value
		}
	}
	writeErr := o.report(recv)
	var ln net.Listener
	// Notifications come only once ln serves.
	bound := func() string { return ln.Addr().String() }
	stopRecording, err := o.startRecording(recv, bound)
	if err != nil {
		return err
	}
	defer stopRecording()
	if ln, err = o.listen(recv); err != nil {
		return err
	}
	cause, err := o.serve(ctx, recv, ln, sbTarget, where)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.IO.ErrOut, summary(recv))
	if cause != nil {
		return cause
	}
	return writeErr()
}

// receiver builds the receiver of the options: the header it checks (its
// value from the environment) and where it forwards.
func (o *Options) receiver() (*webhook.Receiver, error) {
	recv := &webhook.Receiver{HeaderTitle: o.HeaderTitle, ForwardTo: o.ForwardTo, Max: o.Max, FailFirst: o.FailFirst}
	if o.events != nil {
		recv.Skip = o.events.skip
	}
	if o.HeaderTitle != "" {
		recv.HeaderValue = o.Getenv(o.HeaderValueEnv)
		if recv.HeaderValue == "" {
			return nil, cmdutil.Refuse("export it first, with the value the webhook was registered with", "environment variable %s is empty or unset", o.HeaderValueEnv)
		}
		if err := webhook.CheckHeaderValue(recv.HeaderValue); err != nil {
			return nil, err
		}
	}
	if o.ForwardTo != "" {
		target, err := checkForward(o.ForwardTo, o.InsecureForward)
		if err != nil {
			return nil, err
		}
		recv.Forward = webhook.ForwardRules{Insecure: o.InsecureForward, Resolver: o.Resolver}
		if target.note != "" {
			fmt.Fprintln(o.IO.ErrOut, target.note)
		}
	}
	return recv, nil
}

// report prints each notification on stdout (a line, or JSON) and each
// refusal on stderr; what a sender put in them is shown with the expected
// header value masked and terminal escapes inert. It answers the first
// error writing stdout, once listening is over.
func (o *Options) report(recv *webhook.Receiver) (writeErr func() error) {
	var err error
	var once sync.Once
	jsonLines := o.jsonLines()
	shown := secret.NewMasker(recv.HeaderValue)
	recv.OnNotification = func(n webhook.Notification) {
		var werr error
		if jsonLines {
			werr = webhook.WriteJSONLine(o.IO.Out, n)
		} else {
			_, werr = fmt.Fprintln(o.IO.Out, shown.String(Line(o.IO, n)))
		}
		if werr != nil {
			once.Do(func() { err = werr })
		}
	}
	recv.OnReject = func(r webhook.Rejection) {
		if r.OnPurpose {
			// Not a warning: the person asked for it, and a sender that
			// retries is what they are here to see.
			what := r.Kind
			if r.ID != "" {
				what += " " + r.ID
			}
			fmt.Fprintln(o.IO.ErrOut, shown.Text(secret.PrintableLine(fmt.Sprintf("answered %d to the %s notification to %s from %s: %s (--fail-first); the sender should retry it", r.Status, what, r.Path, r.Remote, r.Reason))))
			return
		}
		fmt.Fprintln(o.IO.ErrOut, shown.Text(secret.PrintableLine(fmt.Sprintf("warning: refused a delivery to %s from %s with %d: %s", r.Path, r.Remote, r.Status, r.Reason))))
	}
	return func() error { return err }
}

// listen opens --addr and says where it listens and what it checks.
func (o *Options) listen(recv *webhook.Receiver) (net.Listener, error) {
	addr, err := cmdutil.ListenAddr(context.Background(), o.Addr, "--addr")
	if err != nil {
		return nil, err
	}
	if !cmdutil.LoopbackAddr(o.Addr) {
		fmt.Fprintf(o.IO.ErrOut, "warning: %s is not a loopback address: anyone who can reach this machine can send it notifications (--addr 127.0.0.1:PORT keeps it on this one)\n", o.Addr)
	}
	ln, err := o.Listen("tcp", addr)
	if err != nil {
		return nil, cmdutil.ListenError(err, o.Addr, "--addr")
	}
	started := fmt.Sprintf("listening on http://%s (%s", ln.Addr(), recv)
	if o.events != nil {
		started += ", only " + o.events.String()
	}
	fmt.Fprintln(o.IO.ErrOut, started+"); Ctrl-C to stop")
	return ln, nil
}

// serve runs the receiver on ln until it stops; with a sandbox target it
// registers itself there while the receiver serves (so that a delivery
// right after the registration finds it), watches its webhooks, and
// removes them at the end. cause is why a watch ended listening.
func (o *Options) serve(ctx context.Context, recv *webhook.Receiver, ln net.Listener, sbTarget *config.Target, where string) (cause, err error) {
	serveCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- recv.Serve(serveCtx, ln) }()
	if sbTarget == nil {
		return nil, <-served
	}
	reg, err := o.selfRegister(ctx, sbTarget, where, ln.Addr(), &api.WebhookHeader{Title: recv.HeaderTitle, Value: recv.HeaderValue})
	if err != nil {
		cancel()
		<-served
		return nil, err
	}
	watched := make(chan error, 1)
	go func() { watched <- reg.watch(serveCtx) }()
	select {
	case err = <-served:
		cancel()
		<-watched
	case cause = <-watched:
		cancel()
		err = <-served
	}
	reg.remove()
	return cause, err
}

// summary is the last line: how many notifications were received, and of
// them how many repeated a delivery received before (a duplicate, or the
// sender's retry of one it took for lost), so that 20 received is not
// read as 20 changes.
func summary(recv *webhook.Receiver) string {
	line := fmt.Sprintf("received %d notification(s)", recv.Count())
	if n := recv.Repeats(); n > 0 {
		line += fmt.Sprintf(", %d of them a repeat (a delivery received before)", n)
	}
	if n := recv.FailedOnPurpose(); n > 0 {
		line += fmt.Sprintf(", after failing %d on purpose", n)
	}
	if n := recv.Skipped(); n > 0 {
		line += fmt.Sprintf(", and passed over %d not in --events", n)
	}
	return line
}

// selfRegister registers the listener at addr with the sandbox, with the
// header the receiver checks, and says so.
func (o *Options) selfRegister(ctx context.Context, t *config.Target, where string, addr net.Addr, header *api.WebhookHeader) (*registration, error) {
	base, err := hookBase(addr)
	if err != nil {
		return nil, err
	}
	reg, err := o.register(ctx, t, where, base, header)
	if err != nil {
		return nil, err
	}
	how := "made for this session, never shown"
	if o.HeaderTitle != "" {
		how = "from " + o.HeaderValueEnv
	}
	fmt.Fprintf(o.IO.ErrOut, "deliveries must carry header %s (value %s); listen removes what it registered when it stops\n", header.Title, how)
	return reg, nil
}

// lastMove is, for a captured or refunded notification, the amount of the
// newest capture or refund the payment holds: what the event moved. The
// payment's own amount would read as if all of it had moved.
func lastMove(n webhook.Notification) (string, bool) {
	field := map[string]string{"captured": "captures", "refunded": "refunds"}[strings.ToLower(n.Event)]
	if field == "" || n.Kind == webhook.KindDispute {
		return "", false
	}
	type move struct {
		Amount    json.Number `json:"amount"`
		CreatedAt string      `json:"created_at"`
	}
	var body struct {
		Captures []move `json:"captures"`
		Refunds  []move `json:"refunds"`
	}
	if json.Unmarshal(n.Payload, &body) != nil {
		return "", false
	}
	moves := body.Captures
	if field == "refunds" {
		moves = body.Refunds
	}
	if len(moves) == 0 {
		return "", false
	}
	newest := moves[0]
	for _, m := range moves[1:] {
		if m.CreatedAt >= newest.CreatedAt { // RFC 3339 in UTC: text order is time order
			newest = m
		}
	}
	return newest.Amount.String(), newest.Amount != ""
}

// Line is the one-line view of a notification for a terminal: the time it
// arrived in the --time style, its kind, the payment's or dispute's id, the
// event (coloured as statuses are in tables), the amount in the one money
// format ("50.00 AED", right-aligned), ✓ when the header matched and ↺ for
// a delivery seen before; under 100 columns wide.
func Line(ios *output.IOStreams, n webhook.Notification) string {
	id := n.ID
	if n.Kind == webhook.KindDispute {
		id = n.DisputeID
	}
	if id == "" {
		id = n.Path
	}
	// Every field but the time comes from the sender: a notification body
	// must not drive the terminal, so each is made printable before the
	// status gets its colour.
	clean := func(s string) string { return secret.PrintableLine(s) }
	amount := money.DisplayString(n.Amount, n.Currency)
	if moved, ok := lastMove(n); ok {
		amount = money.DisplayString(moved, n.Currency)
	}
	// The start line says whether a header is checked; a line marks only
	// a notification whose header matched, so a line fits 100 columns.
	check := ""
	if n.Verified {
		check = "✓"
	}
	event := n.Event
	if event == "" {
		event = n.Status
	}
	event = clean(event)
	pad := strings.Repeat(" ", max(12-displaywidth.String(event), 0))
	line := fmt.Sprintf("%s  %-7s  %-36s  %s%s  %12s", ios.FormatTime(n.ReceivedAt), clean(n.Kind), clean(id),
		ios.Colors().Status(event), pad, clean(amount))
	if check != "" {
		line += "  " + check
	}
	if n.Repeat {
		// A delivery seen before (a duplicate, a retry): one mark, so
		// that the line stays under 100 columns.
		if check == "" {
			line += " "
		}
		line += "↺"
	}
	if f := n.Forward; f != nil {
		if f.Error != "" {
			line += "  → forward failed: " + clean(f.Error)
		} else {
			line += fmt.Sprintf("  → %d", f.Status)
		}
		if f.Error != "" || f.Status < 200 || f.Status > 299 {
			line += " (answered the sender with an error: it should retry)"
		}
	}
	return strings.TrimRight(line, " ")
}
