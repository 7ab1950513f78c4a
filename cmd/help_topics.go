package cmd

import (
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// helpTopics are pages of help that are not commands: `bnpl help NAME`
// shows them, the root's help lists them under "Additional help topics".
// They have no Run, which is what makes cobra treat them as topics.
var helpTopics = []struct{ name, short, long string }{
	{"exit-codes", "What each exit code of bnpl means", `Every command exits with one of these codes, so a script can tell what happened
without reading stderr. A usage error (2) sends nothing.

  0    success; also when the reader of stdout leaves early (| head -1): the
       command stops and says nothing
  1    unexpected failure; an answer that is not the service's (check the base
       URL with bnpl doctor)
  2    usage error or local refusal: nothing was sent (a mistyped command or
       flag, a declined confirmation, a reference_id the payment holds for
       another amount, an expired authorization, a refund under an open
       dispute)
  3    bad_data (400): the service refused the request's data
  4    not_authorized (401): the key is wrong or revoked
  5    no_permission (403), including a key of the other region
  6    not_found (404)
  7    conflict (409)
  8    rate limited (429) after retries
  9    server error (5xx) after retries; also a failed read of the payment
       before a move: nothing was moved
  10   the outcome is unknown: a network failure or timeout, or a capture or
       refund after which the payment does not show the move as sent (the
       error says what it holds); for a capture, refund or close the move was
       sent: look at the payment before trying again, with the same
       reference id; a bulk run finished with rows of unknown outcome that
       no read of their payment could settle (run it again with the same
       journal)
  11   a bulk run finished with some rows failed (its report lists them)
  12   the sandbox's state file cannot be opened, read or written (damaged,
       read-only, not a database, a full disk): bnpl doctor names the file and
       the problem; bnpl sandbox reset --force moves it aside and starts afresh;
       also a bulk run's ledger of moves that cannot be used (missing,
       malformed or truncated: nothing was sent; the hint says what to do),
       or that failed while the run went on (it stopped, sending no more)
  13   payments wait: the time-out passed before the status came (wait longer)
  14   payments wait: the payment reached a status from which the awaited one
       can no longer come
  15   sandbox verify or replay: the recording and the replay differ (each
       difference is listed; an --ignore file accepts some with a reason)
  130  interrupted (Ctrl-C; at a prompt too: nothing was sent); bnpl listen
       and bnpl sandbox serve, which run until stopped, end with 0 on Ctrl-C
       or SIGTERM
  143  a bulk run stopped by SIGTERM: run it again to resume

With -o json, -o jsonl or --jq, and stderr not a terminal, stderr is for a
script: exactly one JSON object per error, ended by a newline, and nothing else
(no notices, no progress, no "hint:" line; usage errors and unknown commands
too). --debug brings the words and the log back, the object after them. The
keys are snake_case:

  error        the message
  hint         what to do next, when there is something
  exit_code    the exit code, as above
  error_type   the service's errorType (bad_data, not_found, ...)
  status       the HTTP status of the service's answer
  errors       the service's field errors: field, code, message
  method, path the request that failed
  response     the service's answer: its JSON as it came (secrets masked),
               or its text
  outcome      for a network failure: not_sent or unknown
  problems     for a local validation failure: each path and message

For example:

  {"error":"GET /api/v2/payments/...: 404 not_found: no such payment",
   "hint":"check the id ...","exit_code":6,"error_type":"not_found",
   "status":404,"method":"GET","path":"/api/v2/payments/...",
   "response":{"status":"error","errorType":"not_found",...}}

A security warning that -q does not silence (a config file other users can
read) is then an object of its own, {"warning": ...}, on its own line.`},

	{"environment", "Environment variables bnpl reads", `Flags win over the environment, and the environment over the profile.

  BNPL_PROFILE        the profile to use, as --profile does
  BNPL_LIVE           1, true or yes: use the profile's live key, as --live
                      does
  BNPL_SECRET_KEY     the secret key to send, whatever the profile holds; with
                      no profile it names the merchant's mode by its prefix
                      (sk_test_ test, sk_ live) and needs BNPL_MERCHANT_CODE
                      and a region. A sandbox key (sk_test_ae_sandbox...)
                      chooses the embedded sandbox's merchant
  BNPL_MERCHANT_CODE  the merchant code, over the profile's
  BNPL_REGION         ae (the UAE and Kuwait) or sa (KSA), over the profile's
  BNPL_BASE_URL       the service's base URL, over the profile's and the
                      region's; a sandbox on this machine
                      (http://127.0.0.1:PORT) needs no key: with none, its
                      built-in merchant's key is used
  BNPL_SANDBOX_URL    the running sandbox the bnpl sandbox verbs (approve,
                      reject, clock, reset, dispute...) act on, as
                      --sandbox-url does; without it they act on the sandbox
                      at the base URL when one answers there, else on the
                      embedded sandbox's state
  BNPL_OUTPUT         the default output format: table, json, jsonl, tsv or
                      csv, as -o does
  BNPL_TIME           how times read for people: utc, local or relative, as
                      --time does
  BNPL_DEBUG          1, true or yes: log each HTTP exchange to stderr, keys
                      and signing-header values masked, as --debug does
  BNPL_QUIET          1, true or yes: no notices on stderr, as -q does
  BNPL_LEDGER         the ledger of bulk moves a team shares, a postgres://
                      URL, as --ledger does, over the profile's ledger
  BNPL_PAGER          the pager long output (lists, payments get, timelines,
                      sandbox logs) goes through on a terminal, never when
                      piped; "" or cat: none. Else PAGER, else less -FRX

bnpl sandbox serve reads these where its flags are not given (a container
image sets them; bnpl sandbox serve --help says what each one risks):

  BNPL_SANDBOX_AE_ADDR               --ae-addr
  BNPL_SANDBOX_SA_ADDR               --sa-addr
  BNPL_SANDBOX_STATE                 --state: a file, or :memory:
  BNPL_SANDBOX_PUBLIC_URL            --public-url, REGION=URL pairs,
                                     comma-separated
  BNPL_SANDBOX_ALLOW_HOST            --allow-host, names comma-separated
  BNPL_SANDBOX_ALLOW_REMOTE_CONTROL  1, true or yes: --allow-remote-control
  BNPL_SANDBOX_INSTANCE              --instance: the id /_sandbox/health
                                     answers, for bnpl sandbox wait --instance

In CI: with CI set (to anything but 0, false or no, as GitHub Actions, GitLab
CI and most others do), progress is written as plain lines, never redrawn
with carriage returns: the latest state every 2 seconds, counting up.
Questions depend on stdin alone: with a terminal on stdin bnpl asks before a
removal, a reset or a live money move, CI or not; without one it acts as in
a script, where a removal or a reset goes ahead and a live money move is
refused without --yes; the same holds for the pager, which would wait for
keys nobody types. BNPL_QUIET=1 drops the notices too.

Other variables bnpl follows:

  CI                  set: a CI job (see above)
  NO_COLOR            set and not empty: no colour (as --no-color)
  CLICOLOR            0: no colour
  CLICOLOR_FORCE      set and not 0: colour even when not on a terminal
  PAGER               the pager when BNPL_PAGER is not set
  XDG_CONFIG_HOME     the profiles file is $XDG_CONFIG_HOME/bnpl/config.yaml
                      (else ~/.config/bnpl/config.yaml)
  XDG_STATE_HOME      the embedded sandbox's state is in $XDG_STATE_HOME/bnpl
                      (else ~/.local/state/bnpl)
  XDG_CACHE_HOME      ids recently seen, for shell completion, are in
                      $XDG_CACHE_HOME/bnpl (else ~/.cache/bnpl)

webhooks add|update and listen also read a header's secret value from the
variable named by --header-value-env, so that it never appears in a command
line.`},

	{"formatting", "Output formats, --jq, --template, --columns and --time", `Data goes to stdout and everything else (notices, progress, errors) to stderr.

-o, --output chooses the format (env BNPL_OUTPUT):

  table   for people: aligned columns fitted to the terminal (ids are never
          cut), money as "1250.00 AED", times in the --time style, statuses
          coloured; a table too wide even with its cells wrapped is shown as
          records, a block of "FIELD  value" lines per row. The default on a
          terminal
  tsv     one tab-separated line per record, with a header; the default when
          stdout is not a terminal. Values are the service's own
  csv     the same as RFC 4180 CSV. A detail view (payments get, for example)
          is one CSV document: "label,value" rows, then each section's title,
          header and rows, every row padded to the same number of fields
  json    the service's JSON, indented on a terminal and compact when piped. A
          list is one array, even with --all (it is streamed, not held)
  jsonl   one compact JSON object per line: the streaming, constant-memory form

--jq EXPR filters what -o json prints with a jq expression (gojq): a list is
one array, so --jq length counts and --jq '.[].id' prints every id, with --all
too. With -o jsonl the filter runs on each record instead, in constant memory,
on every list (payments, disputes, webhooks, dispute-webhooks, profiles, sandbox
deliveries and logs, api --paginate), one page or all of them.

--template TEXT lays out what -o json prints with a Go template. Besides Go's
own functions: json, upper, lower, join SEP LIST, lookup "dotted.path" VALUE.

  bnpl payments list -o json --jq '.[] | select(.status == "AUTHORIZED") | .id'
  bnpl payments list --template '{{range .}}{{.id}} {{.amount}}{{"\n"}}{{end}}'

--columns a,b,c picks the columns of a table, tsv or csv, by header or by a
dotted path into the JSON (buyer.email). For a detail view it picks fields by
label (merchant_code for "Merchant code") and sections by title (captures). An
unknown name is a usage error (exit 2) listing the names there are. --no-header
leaves out the header row.

An empty list says so on stderr; on stdout -o json prints [], -o jsonl nothing,
-o csv or -o tsv asked for by name its header alone (bnpl api, whose columns
come from the records, nothing), the default piped output nothing (so that
| wc -l counts rows), and a table on a terminal nothing either.

--time utc|local|relative (env BNPL_TIME) says how tables and detail views show
times: utc "2026-11-22 09:28:33Z" (the default), local in this machine's zone
with its offset, relative as "3 days ago" or "in 2 days". Machine formats
(json, jsonl, tsv, csv and piped tables) keep the service's values.

Colour follows NO_COLOR, CLICOLOR=0, CLICOLOR_FORCE=1 and --no-color, and is
off when stdout is not a terminal.

On a terminal, control characters and bidi overrides in the data (an escape
sequence, U+202E) are shown as \x1b or \u202e, in tables, --jq, --template and
JSON alike; piped output keeps the data's bytes. In csv, a cell that starts
with =, +, -, @, a tab or a carriage return gets a ' in front, so a
spreadsheet shows it rather than runs it (a plain number such as -5.00 stays
a number); --csv-raw writes cells as they are. tsv and csv write amounts with
their currency's places (45.750 KWD as 45.750); json keeps the service's.`},
}

// addHelp adds the help topics and a help command that refuses what is
// neither a command nor a topic (exit 2 with a suggestion), where cobra's
// prints the root's usage and exits 0.
func addHelp(root *cobra.Command) {
	for _, t := range helpTopics {
		root.AddCommand(&cobra.Command{Use: t.name, Short: t.short, Long: t.long})
	}
	help := &cobra.Command{
		Use:   "help [command | topic]",
		Short: "Help about any command, or a topic: " + strings.Join(topicNames(), ", "),
		Long: `Help about any command: bnpl help payments list is bnpl payments list --help.
Topics: ` + strings.Join(topicNames(), ", ") + `.`,
		Example: "  bnpl help payments capture\n  bnpl help exit-codes",
		Args:    cobra.ArbitraryArgs,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			parent, _, err := root.Find(args)
			if err != nil || parent == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, sub := range parent.Commands() {
				if sub.Hidden || sub.Name() == "help" || !strings.HasPrefix(sub.Name(), toComplete) {
					continue
				}
				if sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
					out = append(out, sub.Name()+"\t"+sub.Short)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err == nil && target != nil && len(rest) == 0 {
				return target.Help()
			}
			// What Find could not place: the first word that names nothing
			// below the deepest command it found.
			parent := root
			name := ""
			if len(args) > 0 {
				name = args[0]
			}
			if err == nil && target != nil && len(rest) > 0 {
				parent, name = target, rest[0]
			}
			return unknownTopic(parent, name)
		},
	}
	root.SetHelpCommand(help)
}

func topicNames() []string {
	names := make([]string, 0, len(helpTopics))
	for _, t := range helpTopics {
		names = append(names, t.name)
	}
	return names
}

// unknownTopic is `bnpl help NAME` for a NAME that is no command or topic
// under parent: a usage error suggesting the closest names.
func unknownTopic(parent *cobra.Command, name string) error {
	near := suggest(parent, name)
	where := strings.TrimSpace(strings.TrimPrefix(parent.CommandPath(), parent.Root().Name()))
	hint := "run '" + strings.TrimSpace("bnpl help "+where) + "' to see the commands and topics there are"
	if len(near) > 0 {
		hint = "Did you mean " + strings.Join(near, " or ") + "?"
	}
	if where == "" {
		return cmdutil.UsageHint(hint, "unknown help topic %q", name)
	}
	return cmdutil.UsageHint(hint, "unknown help topic %q for %q", name, parent.CommandPath())
}

// suggest lists the names and aliases of parent's commands (topics
// included) that name is close to: a prefix of, or within two edits.
func suggest(parent *cobra.Command, name string) []string {
	name = strings.ToLower(name)
	type match struct {
		word  string
		score int
	}
	var found []match
	best := 3
	for _, sub := range parent.Commands() {
		if sub.Hidden || sub.Name() == "help" && parent.HasParent() {
			continue
		}
		// One word per command, the closest of its name and aliases (the
		// name on a tie): `lst` suggests list, not list and ls.
		m := match{score: best + 1}
		for _, cand := range append([]string{sub.Name()}, sub.Aliases...) {
			if cand == name {
				continue
			}
			score := cmdutil.EditDistance(name, cand)
			if strings.HasPrefix(cand, name) || slices.Contains(sub.SuggestFor, name) {
				score = 0
			}
			if score < m.score {
				m = match{cand, score}
			}
		}
		if m.score <= 2 {
			found = append(found, m)
			best = min(best, m.score)
		}
	}
	// Only the closest: a one-letter slip is not offered three far ones.
	var out []string
	for _, m := range found {
		if m.score == best {
			out = append(out, m.word)
		}
	}
	sort.Strings(out)
	return out
}

// suggestFlags lists the flags of c (its own and inherited, not hidden or
// deprecated) closest to the mistyped name, as suggest does for commands:
// `--limt` suggests --limit.
func suggestFlags(c *cobra.Command, name string) []string {
	name = strings.ToLower(name)
	best := 3
	var found []string
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden || fl.Deprecated != "" || fl.Name == name {
			return
		}
		score := cmdutil.EditDistance(name, fl.Name)
		if len(name) >= 3 && strings.HasPrefix(fl.Name, name) {
			score = 0
		}
		switch {
		case score < best:
			best, found = score, []string{fl.Name}
		case score == best:
			found = append(found, fl.Name)
		}
	})
	// A short name is near too many flags for two edits to mean anything.
	if best > 2 || len(name) <= 3 && best > 1 {
		return nil
	}
	sort.Strings(found)
	return found
}
