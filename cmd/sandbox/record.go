package sandbox

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/har"
	"github.com/bnpl-cli/bnpl/internal/httpserve"
	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// DefaultRecordAddr is where `sandbox record` listens unless told otherwise.
const DefaultRecordAddr = "127.0.0.1:8790"

// recordOptions are the inputs of `bnpl sandbox record`.
type recordOptions struct {
	File    string
	Addr    string
	Redact  bool
	MaxBody string
	MaxFile string
	Command []string

	maxBody, maxFile int64
}

func newRecordCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &recordOptions{}
	cmd := &cobra.Command{
		Use:   "record FILE.har [--addr HOST:PORT] [--redact] [-- COMMAND [ARG...]]",
		Short: "Record an app's traffic with the service in a HAR file, through a proxy on loopback",
		Long: `Record what an app and the service say to each other. record listens on
loopback (--addr, default 127.0.0.1:8790); point the app's base URL at it. Every
request is forwarded to the base URL the other commands use (the profile's, or
BNPL_BASE_URL; the embedded sandbox when none is configured) and its answer
handed back unchanged, and each exchange is written to FILE.har, a HAR 1.2 file
that browsers' developer tools and HTTP tools open.

Nothing secret reaches the file: the key of each Authorization header is masked
(sk_test_****abcd), every header value not known to be harmless is masked, and
each webhook header.value is masked where it stands in a body, and wherever else
it turns up. Bodies sent or answered compressed (gzip, deflate, br, zstd) are
kept decoded and masked alike; one that cannot be decoded is withheld. With --redact the buyer's name, email, phone, date of birth and
shipping address are replaced by stand-ins, the same value always by the same
stand-in (keyed by a file in the state directory, so listen --record on this
machine replaces them alike); the service's test buyers are kept, as they decide
what the service does. The file is mode 0600 (an existing one is made 0600; a
link at its path is refused).

Only test keys are forwarded: a request with a live key is answered 403 and not
sent, unless record runs with --live, which asks first on a terminal (--yes in
scripts). Bodies are kept up to --max-body (default 1MiB: more goes through but
is kept in part, and not compared by verify) and the file up to --max-file
(default 256MiB: later exchanges go through unrecorded, said once on stderr).
Paths under /_sandbox/ (a sandbox's own endpoints) are forwarded, not recorded.

FILE.har is added to when it is a recording already, so bnpl listen --record
FILE.har can write the service's notifications into it at the same time.

After -- a command is run with BNPL_BASE_URL set to the proxy; recording stops
when it exits, and record exits with its exit status. Otherwise record runs
until Ctrl-C or SIGTERM.

Then bnpl sandbox verify FILE.har checks the sandbox against what the service
answered, and bnpl sandbox replay FILE.har plays the recording back to the app
offline.`,
		Example: `  bnpl sandbox record checkout-flow.har
  bnpl --profile shop-ae sandbox record flow.har --redact --addr 127.0.0.1:9000
  bnpl sandbox record smoke.har -- bnpl smoke`,
		Args: harArgs("name the file to record to, such as flow.har"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File, opts.Command = harFileAndCommand(cmd, args)
			if err := opts.validate(); err != nil {
				return err
			}
			return recordRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Addr, "addr", DefaultRecordAddr, "address the proxy listens on, HOST:PORT (port 0 picks one)")
	fl.BoolVar(&opts.Redact, "redact", false, "replace buyer names, emails, phones, dates of birth and addresses with stand-ins")
	fl.StringVar(&opts.MaxBody, "max-body", "1MiB", "keep at most this much of each body (KiB, MiB, GiB or bytes)")
	fl.StringVar(&opts.MaxFile, "max-file", "256MiB", "stop recording once the file is this large")
	return cmd
}

func (o *recordOptions) validate() error {
	if !strings.HasSuffix(strings.ToLower(o.File), ".har") {
		// HAR tools know the files by their name; and a mistyped verb
		// ("record captrue") must not start a proxy.
		return cmdutil.UsageHint("name the recording FILE.har, such as flow.har", "the recording's name must end in .har, got %q", o.File)
	}
	if _, port, err := net.SplitHostPort(o.Addr); err != nil || port == "" {
		return cmdutil.UsageHint("use HOST:PORT, such as 127.0.0.1:8790", "invalid --addr %q", o.Addr)
	}
	var err error
	if o.maxBody, err = parseSize("--max-body", o.MaxBody); err != nil {
		return err
	}
	if o.maxFile, err = parseSize("--max-file", o.MaxFile); err != nil {
		return err
	}
	if len(o.Command) > 0 && o.Command[0] == "" {
		return cmdutil.Usagef("the command after -- is empty")
	}
	return nil
}

// parseSize reads 4096, 512KiB, 1MiB, 2GiB (KB, MB, GB and K, M, G read as
// the same binary units).
func parseSize(flag, s string) (int64, error) {
	text := strings.TrimSpace(s)
	mult := int64(1)
	upper := strings.ToUpper(text)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(upper, u.suffix) {
			text, mult = strings.TrimSpace(text[:len(text)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, cmdutil.UsageHint("a positive size such as 1MiB, 512KiB or 4096", "invalid %s %q", flag, s)
	}
	return n * mult, nil
}

// recordRun forwards and records until stopped, or until the command
// after -- exits.
func recordRun(ctx context.Context, f *cmdutil.Factory, o *recordOptions) error {
	rec, target, err := newRecorder(ctx, f, o)
	if err != nil {
		return err
	}
	defer rec.Writer.Close()
	addr, err := cmdutil.ListenAddr(ctx, o.Addr, "--addr")
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return cmdutil.ListenError(err, o.Addr, "--addr")
	}
	proxyURL := "http://" + ln.Addr().String()
	upstream := secret.RedactURL(target.BaseURL)
	if target.Embedded {
		upstream = "the embedded sandbox"
	}
	fmt.Fprintf(f.IO.ErrOut, "recording to %s the traffic with %s (region %s)\n", o.File, upstream, target.Region)
	if !cmdutil.LoopbackAddr(o.Addr) {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s is not a loopback address: anyone who can reach this machine can send requests through it with the app's keys\n", o.Addr)
	}
	lim := httpserve.Limits{MaxConns: 256, MaxBodies: 64}
	srv := lim.Server(http.MaxBytesHandler(rec, 16<<20))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lim.Listener(ln)) }()

	runErr := waitFor(ctx, f, o.Command, proxyURL, f.IO.Out, served, nil)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	summary := fmt.Sprintf("recorded %d exchange(s) in %s", rec.Writer.Written(), o.File)
	if n := rec.Writer.Dropped(); n > 0 {
		summary += fmt.Sprintf("; %d more went through unrecorded, past --max-file", n)
	}
	fmt.Fprintln(f.IO.ErrOut, summary)
	return runErr
}

// waitFor waits for the command after -- (its exit status is the
// verb's; its stdout goes to out), or without one for done (nil: never),
// Ctrl-C or SIGTERM.
func waitFor(ctx context.Context, f *cmdutil.Factory, command []string, baseURL string, out io.Writer, served <-chan error, done <-chan struct{}) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	if len(command) == 0 {
		fmt.Fprintf(f.IO.ErrOut, "point the app's base URL at %s; Ctrl-C to stop\n", baseURL)
		select {
		case <-ctx.Done():
			return nil
		case <-done:
			return nil
		case err := <-served:
			return err
		}
	}
	fmt.Fprintf(f.IO.ErrOut, "running %s with BNPL_BASE_URL=%s\n", command[0], baseURL)
	child := exec.Command(command[0], command[1:]...)
	child.Env = append(os.Environ(), "BNPL_BASE_URL="+baseURL)
	child.Stdin, child.Stdout, child.Stderr = f.IO.In, out, f.IO.ChildErr()
	if out == f.IO.Out {
		// The terminal itself, so that the command fits its tables to it.
		child.Stdout = f.IO.ChildOut()
	}
	if err := child.Start(); err != nil {
		return cmdutil.Refuse("check the command's name and that it is on PATH", "cannot run %s: %v", command[0], err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return &cmdutil.Silent{Code: ee.ExitCode()}
		}
		return err
	case <-ctx.Done():
		// The command got Ctrl-C from the terminal as well; SIGTERM is
		// passed on.
		_ = child.Process.Signal(syscall.SIGTERM)
		<-exited
		return nil
	}
}

// newRecorder builds the proxy for the target the other commands use.
func newRecorder(ctx context.Context, f *cmdutil.Factory, o *recordOptions) (*har.Recorder, *config.Target, error) {
	t, err := f.Target()
	if err != nil {
		return nil, nil, err
	}
	upstream, transport, err := recordUpstream(f, t)
	if err != nil {
		return nil, nil, err
	}
	live := t.Live || f.Global.Live
	if live {
		if err := f.Confirmer(true).Confirm("record traffic with live keys"); err != nil {
			return nil, nil, err
		}
	}
	var redactor *har.Redactor
	if o.Redact {
		key, err := har.LoadRedactKey(config.StateDir(f.Getenv))
		if err != nil {
			return nil, nil, err
		}
		redactor = har.NewRedactor(key)
	}
	meta := har.LogMeta{Region: t.Region, Target: secret.RedactURL(t.BaseURL), Redacted: o.Redact}
	w, err := har.OpenWriter(o.File, meta, f.Version, o.maxFile)
	if err != nil {
		return nil, nil, err
	}
	if w.Meta().Redacted != o.Redact {
		w.Close()
		return nil, nil, redactMismatch(o.File, w.Meta().Redacted)
	}
	rec := &har.Recorder{Upstream: upstream, Transport: transport, Writer: w, MaxBody: o.maxBody,
		Scrubber: har.NewScrubber(redactor, t.SecretKey),
		Refuse:   liveKeyGuard(live),
		Record:   func(path string) bool { return !strings.HasPrefix(path, "/_sandbox/") },
		OnWriteError: func(err error) {
			fmt.Fprintf(f.IO.ErrOut, "warning: an exchange was not recorded: %v\n", err)
		}}
	return rec, t, nil
}

func redactMismatch(file string, fileRedacts bool) error {
	if fileRedacts {
		return cmdutil.UsageHint("add --redact, or record to a new file", "%s replaces buyer data (it was recorded with --redact)", file)
	}
	return cmdutil.UsageHint("drop --redact, or record to a new file", "%s keeps buyer data as it is (it was recorded without --redact)", file)
}

// recordUpstream is where record forwards to, and how.
func recordUpstream(f *cmdutil.Factory, t *config.Target) (*url.URL, http.RoundTripper, error) {
	u, err := url.Parse(t.BaseURL)
	if err != nil || u.Host == "" {
		return nil, nil, cmdutil.Refuse("set an absolute base URL, such as https://api.tabby.ai", "invalid base URL %q", secret.RedactURL(t.BaseURL))
	}
	if t.Embedded {
		sb, err := f.EmbeddedSandbox()
		if err != nil {
			return nil, nil, err
		}
		return u, sb.Transport(t.Region), nil
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && netguard.LoopbackCandidate(u.Hostname())) {
		return nil, nil, cmdutil.Refuse("the service is reached over https; plain http only to this machine",
			"refusing to forward keys to %s over plain http", secret.RedactURL(t.BaseURL))
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DisableCompression:    true, // the app's Accept-Encoding goes as it is
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute,
		ForceAttemptHTTP2:     true,
	}
	if u.Scheme == "http" {
		// The keys go only where the upstream's host resolves to this
		// machine, dialled at exactly that address.
		tr.DialContext = netguard.DialLoopback(&net.Dialer{Timeout: 30 * time.Second})
	}
	return u, tr, nil
}

// liveKeyGuard answers a request carrying a live key with 403, unless
// record runs live: the key is never sent.
func liveKeyGuard(live bool) func(r *http.Request) (int, string, bool) {
	return func(r *http.Request) (int, string, bool) {
		if live || !liveKeyIn(r.Header) {
			return 0, "", false
		}
		return http.StatusForbidden, `{"status":"error","errorType":"no_permission","error":"bnpl sandbox record forwards test keys only: run it with --live to record live traffic"}`, true
	}
}

// liveKeyIn reports whether a request carries a key that is not a test
// key, read more leniently than any server would: every Authorization
// and Proxy-Authorization header, every word of each (any spacing, tabs,
// commas, a bare key, any case of the scheme), and the user and password
// of Basic credentials.
func liveKeyIn(h http.Header) bool {
	for name, values := range h {
		if !strings.EqualFold(name, "Authorization") && !strings.EqualFold(name, "Proxy-Authorization") {
			continue
		}
		for _, v := range values {
			for _, word := range strings.FieldsFunc(v, func(r rune) bool { return unicode.IsSpace(r) || r == ',' }) {
				if liveWord(word) {
					return true
				}
				if b, err := base64.StdEncoding.DecodeString(word); err == nil {
					user, pass, _ := strings.Cut(string(b), ":")
					if liveWord(user) || liveWord(pass) {
						return true
					}
				}
			}
		}
	}
	return false
}

// liveWord tells a word that is a secret key and not a test key.
func liveWord(w string) bool {
	w = strings.ToLower(strings.Trim(w, "\"'"))
	return strings.HasPrefix(w, "sk_") && !strings.HasPrefix(w, "sk_test_")
}

// harArgs accepts what record and replay take: one FILE.har before --
// (hint says what to name when it is missing), and any command after it.
func harArgs(hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		at := cmd.ArgsLenAtDash()
		if at < 0 {
			at = len(args)
		}
		if at != 1 {
			return cmdutil.UsageHint(hint, "%s takes one FILE.har before --, got %d", cmd.Name(), at)
		}
		return nil
	}
}

// harFileAndCommand are the file and the command (after --, none without
// it) of the arguments harArgs accepted.
func harFileAndCommand(cmd *cobra.Command, args []string) (file string, command []string) {
	if at := cmd.ArgsLenAtDash(); at >= 0 {
		command = args[at:]
	}
	return args[0], command
}
