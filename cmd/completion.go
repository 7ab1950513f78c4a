package cmd

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/recent"
)

// completionTimeout bounds the one request an id completion may make: a
// shell waiting on <TAB> longer than this is worse than no suggestion.
const completionTimeout = 2 * time.Second

type completeFunc = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)

// value is one allowed value of a flag and what it means.
type value struct{ word, desc string }

func words(ws ...string) []value {
	out := make([]value, len(ws))
	for i, w := range ws {
		out[i] = value{word: w}
	}
	return out
}

// flagValues are the flags whose values are a fixed set; the shells offer
// them, and never file names. A path of "" is the root's persistent flags.
func flagValues() []struct {
	path, flag string
	values     []value
	list       bool // a comma-separated list (StringSlice)
} {
	regions := []value{{"ae", "the UAE and Kuwait"}, {"sa", "KSA"}}
	waits := []value{}
	for _, s := range []string{api.StatusCreated, api.StatusAuthorized, api.StatusClosed, api.StatusRejected, api.StatusExpired} {
		waits = append(waits, value{word: strings.ToLower(s)})
	}
	listStatuses := append(words(api.PaymentListStatuses...), value{"created", "not finished yet, the dashboard's new"}, value{"expired", "EXPIRED only, of the dashboard's cancelled"})
	var resolve []value
	for _, s := range api.DisputeStatuses {
		if s != "new" {
			resolve = append(resolve, value{word: s})
		}
	}
	return []struct {
		path, flag string
		values     []value
		list       bool
	}{
		{"", "output", []value{{output.FormatTable, "aligned columns for people"}, {output.FormatJSON, "the service's JSON; a list is one array"}, {output.FormatJSONL, "one JSON object per line"}, {output.FormatTSV, "tab-separated, with a header"}, {output.FormatCSV, "RFC 4180 CSV"}}, false},
		{"", "time", []value{{"utc", "2026-11-22 09:28:33Z"}, {"local", "this machine's zone, with its offset"}, {"relative", "3 days ago"}}, false},
		{"payments list", "status", listStatuses, false},
		{"payments wait", "status", waits, false},
		{"disputes list", "status", words(api.DisputeStatuses...), true},
		{"disputes challenge", "reason", words(api.ChallengeReasons...), false},
		{"sandbox dispute open", "reason", words(api.DisputeReasons...), false},
		{"sandbox dispute resolve", "status", resolve, false},
		{"sandbox logs", "status", []value{{"4xx", "every client error"}, {"5xx", "every server error"}, {"2xx", "every success"}, {"400", "bad request"}, {"401", "no or wrong key"}, {"404", "not found"}, {"409", "conflict"}, {"429", "rate limited"}, {"500", "internal error"}, {"503", "unavailable"}}, false},
		{"sandbox deliveries", "status", []value{{"failed", "attempts not answered 200"}, {"delivered", "attempts answered 200"}, {"pending", "deliveries waiting for an attempt"}}, false},
		{"login", "region", regions, false},
		{"profiles set", "region", regions, false},
	}
}

// addCompletions registers the completion of flag values and of ids.
func addCompletions(root *cobra.Command, f *cmdutil.Factory) {
	for _, fv := range flagValues() {
		c := root
		if fv.path != "" {
			var err error
			c, _, err = root.Find(strings.Fields(fv.path))
			if err != nil || c.Name() != lastWord(fv.path) {
				continue
			}
		}
		_ = c.RegisterFlagCompletionFunc(fv.flag, completeValues(fv.values, fv.list))
	}

	// Ids, where one short request finds them.
	dispute := remoteIDs(f, func() (*api.Client, error) { return f.LiveClient("disputes") }, listDisputes)
	hooks := remoteIDs(f, f.Client, listWebhooks)
	disputeHooks := remoteIDs(f, func() (*api.Client, error) { return f.LiveClient("dispute webhooks") }, listDisputeWebhooks)
	ids := map[string]completeFunc{
		"disputes get":            dispute,
		"disputes challenge":      dispute,
		"disputes evidence":       dispute,
		"disputes approve":        dispute,
		"webhooks get":            hooks,
		"webhooks remove":         hooks,
		"webhooks update":         hooks,
		"dispute-webhooks get":    disputeHooks,
		"dispute-webhooks remove": disputeHooks,
		"dispute-webhooks update": disputeHooks,
		"checkout get":            recent.CompleteSessionIDs(f.Getenv),
		"checkout qr":             recent.CompleteSessionIDs(f.Getenv),
		"sandbox approve":         paymentsIn(f, "new", api.StatusCreated),
		"sandbox reject":          paymentsIn(f, "new", api.StatusCreated),
		"sandbox cancel":          paymentsIn(f, "new", api.StatusCreated),
		"payments capture":        paymentsIn(f, "authorized", api.StatusAuthorized),
	}
	for path, fn := range ids {
		c, _, err := root.Find(strings.Fields(path))
		if err != nil || c.Name() != lastWord(path) {
			continue
		}
		c.ValidArgsFunction = fn
	}
}

func lastWord(s string) string {
	f := strings.Fields(s)
	return f[len(f)-1]
}

// completeValues offers the values that start with what is typed; for a
// list flag, after the last comma, leaving out the values already given.
func completeValues(values []value, list bool) completeFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		prefix, typed := "", toComplete
		given := map[string]bool{}
		if list {
			if i := strings.LastIndex(toComplete, ","); i >= 0 {
				prefix, typed = toComplete[:i+1], toComplete[i+1:]
				for _, g := range strings.Split(toComplete[:i], ",") {
					given[strings.ToLower(strings.TrimSpace(g))] = true
				}
			}
		}
		var out []string
		for _, v := range values {
			if given[v.word] || !strings.HasPrefix(v.word, strings.ToLower(typed)) {
				continue
			}
			if v.desc != "" {
				out = append(out, prefix+v.word+"\t"+v.desc)
			} else {
				out = append(out, prefix+v.word)
			}
		}
		directive := cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
		if list {
			directive |= cobra.ShellCompDirectiveNoSpace
		}
		return out, directive
	}
}

// idLister reads one page of ids, each with a note shells show beside it.
type idLister func(ctx context.Context, c *api.Client) ([][2]string, error)

// remoteIDs completes a command's first argument with ids one request
// finds. It is quiet: any failure (no profile, no live key, no network, a
// slow service) completes nothing rather than print an error into the
// person's command line.
func remoteIDs(f *cmdutil.Factory, client func() (*api.Client, error), list idLister) completeFunc {
	return remoteIDsOr(f, client, list, nil)
}

// remoteIDsOr is remoteIDs that, when the request fails, offers what
// fallback offers instead.
func remoteIDsOr(f *cmdutil.Factory, client func() (*api.Client, error), list idLister, fallback completeFunc) completeFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		failed := func() ([]string, cobra.ShellCompDirective) {
			if fallback != nil {
				return fallback(cmd, args, toComplete)
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		const directive = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
		if len(args) > 0 && cmd.Name() != "approve" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		f.Global.Quiet = true
		f.Global.Retries = 0
		f.Global.Timeout = completionTimeout
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(ctx, completionTimeout)
		defer cancel()
		c, err := client()
		if err != nil {
			return failed()
		}
		items, err := list(ctx, c)
		if err != nil {
			return failed()
		}
		var out []string
		for _, it := range items {
			if !strings.HasPrefix(it[0], strings.ToLower(toComplete)) || contains(args, it[0]) {
				continue
			}
			if it[1] != "" {
				out = append(out, it[0]+"\t"+it[1])
			} else {
				out = append(out, it[0])
			}
		}
		return out, directive
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// recentIn offers the payments recently printed in a status (as their
// notes say): what a payment list would have given, when it cannot be read.
func recentIn(f *cmdutil.Factory, status string) completeFunc {
	all := recent.CompletePaymentIDs(f.Getenv)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		out, d := all(cmd, args, toComplete)
		kept := out[:0]
		for _, o := range out {
			if _, note, _ := strings.Cut(o, "\t"); strings.HasPrefix(note, status+" ") {
				kept = append(kept, o)
			}
		}
		return kept, d
	}
}

// paymentsIn completes the ids of payments in a status (the list's word
// for it, and the status a payment shows), from the service, else from
// the payments recently printed.
func paymentsIn(f *cmdutil.Factory, listStatus, shown string) completeFunc {
	return remoteIDsOr(f, f.Client, listPayments(listStatus), recentIn(f, shown))
}

func listPayments(status string) idLister {
	return func(ctx context.Context, c *api.Client) ([][2]string, error) {
		page, err := c.ListPayments(ctx, api.ListPaymentsParams{Status: status, Limit: api.MaxPageLimit})
		if err != nil {
			return nil, err
		}
		var out [][2]string
		for _, p := range page.Payments {
			ref := ""
			if p.Order != nil {
				ref = p.Order.ReferenceID
			}
			out = append(out, [2]string{p.ID, strings.TrimSpace(p.Status + " " + money.Display(p.Amount, p.Currency) + " " + ref)})
		}
		return out, nil
	}
}

func listDisputes(ctx context.Context, c *api.Client) ([][2]string, error) {
	page, err := c.ListDisputes(ctx, api.DisputeListParams{})
	if err != nil {
		return nil, err
	}
	var out [][2]string
	for _, d := range page.Disputes {
		out = append(out, [2]string{d.ID, strings.TrimSpace(strings.ToUpper(d.Status) + " " + money.Display(d.Amount, d.Currency) + " " + d.Reason)})
	}
	return out, nil
}

func listWebhooks(ctx context.Context, c *api.Client) ([][2]string, error) {
	return hookChoices(c.ListWebhooks(ctx))
}

func listDisputeWebhooks(ctx context.Context, c *api.Client) ([][2]string, error) {
	return hookChoices(c.ListDisputeWebhooks(ctx))
}

// hookChoices offers webhooks, payment or dispute ones, by id with their
// URL as the description.
func hookChoices[H api.Webhook | api.DisputeWebhook](hooks []H, err error) ([][2]string, error) {
	if err != nil {
		return nil, err
	}
	out := make([][2]string, 0, len(hooks))
	for _, h := range hooks {
		switch h := any(h).(type) {
		case api.Webhook:
			out = append(out, [2]string{h.ID, h.URL})
		case api.DisputeWebhook:
			out = append(out, [2]string{h.ID, h.URL})
		}
	}
	return out, nil
}
