// Package cmd assembles the bnpl command tree: global flags, the factory and
// the one place where errors become exit codes.
package cmd

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/version"
	"github.com/bnpl-cli/bnpl/internal/buildinfo"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// Execute runs bnpl with the process's arguments and returns its exit code.
func Execute() int {
	version, commit, date := buildinfo.Info()
	f := cmdutil.New(version, commit, date)
	defer f.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// A stdout whose reader went away (`| head -1`) is a write error that
	// ends the run quietly with exit 0, not a SIGPIPE that kills it with
	// none of the documented codes; the run's context ends with it, so a
	// walk or a follow stops instead of going on for nobody.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f.IO.OnStdoutClosed(cancel)

	return Run(ctx, f, os.Args[1:])
}

// Run executes the command tree over f with args and returns the exit code;
// Execute and the tests share it.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) int {
	// Set before the tree is built: commands take prompters as they are
	// built.
	f.Interrupt = ctx
	if scriptErrors(args, f.Getenv) && !f.IO.IsStderrTTY() {
		// Decided from the arguments before cobra parses them, so that a
		// flag cobra refuses still gets its error as JSON.
		f.IO.ScriptErrors()
	}
	root := newRoot(f, onlyNoun(args))
	// What completes flag values and ids is wanted only by the shell's
	// completion request, not on every start.
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		addCompletions(root, f)
	}
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	// The pager, if the command started one, ends before an error is told.
	f.IO.StopPager()
	return handleError(f, root, args, err)
}

// endedByClosedStdout reports whether err is only the consequence of
// stdout's reader going away: the failed write itself, or the run's context
// ended by it. An error that carries its own exit code (a bulk run stopped
// half-way, to be resumed) is still told.
func endedByClosedStdout(err error) bool {
	if errors.Is(err, output.ErrStdoutClosed) {
		return true
	}
	var coded interface{ ExitCode() int }
	return errors.Is(err, context.Canceled) && !errors.As(err, &coded)
}

func handleError(f *cmdutil.Factory, root *cobra.Command, args []string, err error) int {
	if err == nil || f.IO.StdoutClosed() && endedByClosedStdout(err) {
		return cmdutil.ExitOK
	}
	err = f.LiveHint(err)
	var usage *cmdutil.UsageError
	if !errors.As(err, &usage) && isCobraUsage(err) {
		err = &cmdutil.UsageError{Err: err}
	}
	code := cmdutil.ExitCode(err)
	if code == cmdutil.ExitInterrupted && strings.Contains(err.Error(), context.Canceled.Error()) {
		// Ctrl-C ended a walk or a search between requests: Go's words
		// for it ("context canceled", with whatever wrapped them) say
		// nothing to a person; one word, as a cut request says it.
		err = &output.Error{Message: "interrupted", Code: code}
	}
	var silent *cmdutil.Silent
	if f.IO.ScriptErrorsOn() && code != cmdutil.ExitOK && errors.As(err, &silent) {
		// Its words were notices, and notices are gone: the script still
		// gets its one object.
		msg := usageCommand(root, args).CommandPath() + " failed"
		if code == cmdutil.ExitInterrupted {
			msg = "interrupted"
		}
		err = &output.Error{Message: msg, Code: code}
		silent = nil
	}
	if code == cmdutil.ExitOK || errors.As(err, &silent) {
		return code
	}
	if f.IO.ScriptErrorsOn() {
		// The script contract: one JSON object, and nothing else.
		if cmdutil.ShowsUsage(err) && errorHint(err) == "" {
			err = cmdutil.WithHint(err, "run '"+usageCommand(root, args).CommandPath()+" --help' for usage")
		}
		output.PrintError(f.IO, err, false)
		return code
	}
	// The JSON object is for a script reading stderr; a person at a
	// terminal reads the same error once, in words. With --debug stderr is
	// a log, and the object follows the words.
	output.PrintError(f.IO, err, wantsJSON(f) && !f.IO.IsStderrTTY())
	if cmdutil.ShowsUsage(err) {
		// One line pointing at the help, not forty lines of usage that
		// bury the error.
		f.IO.ErrOut.Write([]byte("Run '" + usageCommand(root, args).CommandPath() + " --help' for usage.\n"))
	}
	return code
}

// usageCommand is the command whose help a usage error points at.
func usageCommand(root *cobra.Command, args []string) *cobra.Command {
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		return root
	}
	return c
}

func errorHint(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	return ""
}

// scriptErrors reports whether the arguments or the environment ask for
// JSON output (-o json, -o jsonl, --jq) without --debug: then stderr
// carries one JSON object per error and nothing else. The arguments are
// read as cobra will read them, up to "--".
func scriptErrors(args []string, getenv func(string) string) bool {
	output, jq, debug := "", false, truthy(getenv("BNPL_DEBUG"))
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--":
			i = len(args)
		case a == "--output" || a == "-o":
			output = next()
		case strings.HasPrefix(a, "--output="):
			output = strings.TrimPrefix(a, "--output=")
		case a == "--jq" || strings.HasPrefix(a, "--jq="):
			jq = true
		case a == "--debug":
			debug = true
		case strings.HasPrefix(a, "--debug="):
			debug = truthy(strings.TrimPrefix(a, "--debug="))
		case strings.HasPrefix(a, "-o"):
			output = strings.TrimPrefix(strings.TrimPrefix(a, "-o"), "=")
		case len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "o") && !strings.ContainsAny(a[1:len(a)-1], "opfFt"):
			// Shorthands run together, -qo json.
			output = next()
		}
	}
	if output == "" {
		output = getenv("BNPL_OUTPUT")
	}
	if debug {
		return false
	}
	return output == "json" || output == "jsonl" || jq
}

// Cobra reports unknown commands and flags as plain errors; they are usage
// errors all the same.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "required flag", "if any flags in the group", "accepts "} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, "required flag(s)") {
			return true
		}
	}
	return false
}

func wantsJSON(f *cmdutil.Factory) bool {
	switch f.Global.Output {
	case "json", "jsonl":
		return true
	}
	return f.Global.JQ != ""
}

// NewRootCmd builds the command tree over f.
func NewRootCmd(f *cmdutil.Factory) *cobra.Command { return newRoot(f, "") }

// newRoot builds the root with every noun, or with the one noun named
// (see onlyNoun): the same commands, flags and behaviour for that noun,
// without building the sixty others on every start.
func newRoot(f *cmdutil.Factory, noun string) *cobra.Command {
	g := f.Global
	root := &cobra.Command{
		Use:   "bnpl <noun> <verb> [flags]",
		Short: "Merchant command line for an installment payment service, with a local sandbox",
		Long: `bnpl captures, refunds and inspects installment payments, disputes and webhooks
from a terminal or a script, and runs a faithful local sandbox of the service.

With no profile configured it talks to the embedded sandbox, so it works on a fresh
machine with no network and no real money.`,
		Example: `  bnpl checkout create --input testdata/checkout.json
  bnpl sandbox approve <session-or-payment-id>
  bnpl payments capture <payment-id> --amount 100.00
  bnpl payments list --status authorized -o json --jq '.[].id'`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return applyEnv(f, cmd)
		},
	}
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetHelpFunc(wrapHelp(f, root.HelpFunc()))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
			if near := suggestFlags(c, name); len(near) > 0 {
				return cmdutil.UsageHint("Did you mean --"+strings.Join(near, " or --")+"?", "%w", err)
			}
		}
		if hint := shorthandHint(c, err); hint != "" {
			return cmdutil.UsageHint(hint, "%w", err)
		}
		return &cmdutil.UsageError{Err: err}
	})

	pf := root.PersistentFlags()
	pf.StringVarP(&g.Profile, "profile", "p", "", "profile to use (env BNPL_PROFILE)")
	pf.BoolVar(&g.Live, "live", false, "use the profile's live key; the test key is the default (env BNPL_LIVE=1)")
	pf.BoolVar(&g.Sandbox, "sandbox", false, "use the embedded sandbox whatever the profiles say")
	pf.StringVarP(&g.Output, "output", "o", "", "output format: table, json, jsonl, tsv, csv (env BNPL_OUTPUT; default table on a terminal, tsv when piped)")
	pf.StringVar(&g.JQ, "jq", "", "filter the JSON result with a jq expression")
	pf.StringVar(&g.Template, "template", "", "format the JSON result with a Go template")
	pf.StringSliceVar(&g.Columns, "columns", nil, "table columns to show, by name or JSON path (a,b,c)")
	pf.BoolVar(&g.NoHeader, "no-header", false, "omit the header row of tables, tsv and csv")
	pf.BoolVar(&g.CSVRaw, "csv-raw", false, "write csv cells as they are: no quote before a cell that starts with =, +, -, @")
	pf.BoolVar(&g.DryRun, "dry-run", false, "print the request that would be sent and send nothing")
	pf.BoolVar(&g.Debug, "debug", false, "log each HTTP exchange to stderr, secrets masked (env BNPL_DEBUG=1)")
	pf.DurationVar(&g.Timeout, "timeout", g.Timeout, "per-request timeout")
	pf.IntVar(&g.Retries, "retries", g.Retries, "retries of safe-to-retry failures")
	pf.BoolVarP(&g.Yes, "yes", "y", false, "skip confirmations: of live money moves, and on a terminal of removals and resets")
	pf.BoolVarP(&g.Quiet, "quiet", "q", false, "no notices on stderr")
	pf.BoolVar(&g.NoColor, "no-color", false, "no colour (also NO_COLOR, CLICOLOR=0)")
	pf.StringVar(&g.Time, "time", "", "how times read in tables and views: utc, local or relative (env BNPL_TIME; default utc)")

	root.Version = f.Version
	root.Annotations = map[string]string{"version_line": version.Line(f)}
	root.SetVersionTemplate(`{{index .Root.Annotations "version_line"}}` + "\n")
	root.Flags().Bool("version", false, "print the version, as bnpl version does")

	if noun != "" {
		addNoun(root, f, noun)
	} else {
		addCommands(root, f)
	}
	addHelp(root)
	addAliases(root)
	refuseUnknownSubcommands(root)
	return root
}

// verbAliases are the other words people type for a verb, whichever noun it
// belongs to: kubectl's and gh's habits.
var verbAliases = map[string][]string{
	"list":   {"ls"},
	"get":    {"view", "show"},
	"remove": {"rm", "delete"},
}

// pathAliases are the aliases of one command, by its path below the root.
var pathAliases = map[string][]string{
	"profiles use": {"switch"},
}

// addAliases gives every verb of the tree its usual aliases, so that a
// new noun's list, get and remove answer to them too. A top-level command
// (a noun) gets none, and an alias never hides a real sibling.
func addAliases(c *cobra.Command) {
	for _, sub := range c.Commands() {
		var aliases []string
		if c.HasParent() {
			aliases = verbAliases[sub.Name()]
		}
		path := strings.TrimPrefix(sub.CommandPath(), sub.Root().Name()+" ")
		for _, a := range append(slices.Clone(aliases), pathAliases[path]...) {
			if !slices.Contains(sub.Aliases, a) && !hasCommand(c, a) {
				sub.Aliases = append(sub.Aliases, a)
			}
		}
		addAliases(sub)
	}
}

func hasCommand(parent *cobra.Command, name string) bool {
	for _, c := range parent.Commands() {
		if c.Name() == name {
			return true
		}
	}
	return false
}

// refuseUnknownSubcommands makes every group of the tree (a command that
// only holds other commands) fail on an argument that names none of them.
// Cobra does this for the root only; below it a typo printed the group's
// help and exited 0, which lets a CI script pass by mistake.
func refuseUnknownSubcommands(c *cobra.Command) {
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return unknownCommand(cmd, args[0])
		}
	}
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
}

func unknownCommand(cmd *cobra.Command, name string) error {
	hint := "run '" + cmd.CommandPath() + " --help' to see its commands"
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := suggest(cmd, name); len(s) > 0 {
		hint = "Did you mean " + strings.Join(s, " or ") + "?"
	}
	return cmdutil.UsageHint(hint, "unknown command %q for %q", name, cmd.CommandPath())
}

// applyEnv lets the environment fill flags the command line did not set:
// flag > env > profile.
func applyEnv(f *cmdutil.Factory, cmd *cobra.Command) error {
	g := f.Global
	changed := func(name string) bool {
		fl := cmd.Flags().Lookup(name)
		return fl != nil && fl.Changed
	}
	if !changed("profile") {
		g.Profile = f.Getenv("BNPL_PROFILE")
	}
	if !changed("live") && truthy(f.Getenv("BNPL_LIVE")) {
		g.Live = true
	}
	if !changed("output") && g.Output == "" {
		g.Output = f.Getenv("BNPL_OUTPUT")
	}
	if !changed("debug") && truthy(f.Getenv("BNPL_DEBUG")) {
		g.Debug = true
	}
	if !changed("quiet") && truthy(f.Getenv("BNPL_QUIET")) {
		g.Quiet = true
	}
	if cmdutil.InCI(f.Getenv) {
		// A CI job's progress is written as plain lines that a log keeps.
		// A question is still asked whenever a terminal is on stdin: a
		// person set CI in their shell, or sits at the runner's terminal,
		// and a reset or a live move must not go ahead unasked.
		f.IO.SetPlainProgress(true)
	}
	if g.NoColor {
		f.IO.DisableColor()
	}
	timeFrom := "--time"
	if !changed("time") && g.Time == "" {
		g.Time = f.Getenv("BNPL_TIME")
		timeFrom = "BNPL_TIME"
	}
	style, err := output.ParseTimeStyle(g.Time)
	if err != nil {
		// Named as the person gave it: the flag, or the variable set
		// in their shell.
		return output.ParseTimeStyleFrom(timeFrom, g.Time)
	}
	f.IO.SetTimeStyle(style)
	if g.Retries < 0 {
		return cmdutil.Usagef("--retries must be 0 or more, got %d", g.Retries)
	}
	if g.Timeout <= 0 {
		return cmdutil.Usagef("--timeout must be positive, got %s", g.Timeout)
	}
	// A named pipe given as a file waits for its writer this long.
	userfile.SetPipeWait(g.Timeout)
	if g.JQ != "" && g.Template != "" {
		return cmdutil.Usagef("--jq and --template cannot be used together")
	}
	return nil
}

func truthy(v string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return strings.EqualFold(strings.TrimSpace(v), "yes")
	}
	return b
}
