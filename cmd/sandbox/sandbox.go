// Package sandbox holds `bnpl sandbox`: serving the emulator, and playing the
// customer and the service on a running sandbox or on the embedded state.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/payments"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// NewCmd returns `bnpl sandbox` and its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox <verb>",
		Short: "Run the local sandbox, and play the customer on it",
		Long: `The sandbox emulates the service on loopback: the same paths, keys, statuses,
error bodies and messages, with state. Its verbs play what the API does not expose:
the customer approving, rejecting or cancelling at checkout, an authorization
lapsing, and a reset.

The verbs act on, in order: the sandbox named by --sandbox-url, else by
BNPL_SANDBOX_URL, else the base URL the other commands use (profile or
BNPL_BASE_URL) when it is a loopback address where a bnpl sandbox answers, else
the embedded sandbox's state that commands use when no profile is configured.
Each says on stderr, in one line, which sandbox it uses (not with --quiet).`,
	}
	cmd.PersistentFlags().StringVar(&f.Global.SandboxURL, "sandbox-url", "", "base URL of a running sandbox (env BNPL_SANDBOX_URL); default: the base URL when a sandbox answers there, else the embedded state")
	cmd.AddCommand(newServeCmd(f), newWaitCmd(f))
	for _, v := range []struct{ verb, short, what string }{
		{"approve", "Approve a checkout as the customer: the payment becomes AUTHORIZED", "session or payment"},
		{"reject", "Reject a checkout as the customer: the payment becomes REJECTED", "session or payment"},
		{"cancel", "Cancel a checkout as the customer: the payment becomes EXPIRED", "session or payment"},
		{"expire-auth", "Make a payment's authorization lapse now", "payment"},
	} {
		cmd.AddCommand(newMoveCmd(f, v.verb, v.short, v.what))
	}
	cmd.AddCommand(newResetCmd(f), newClockCmd(f), newDisputeCmd(f))
	cmd.AddCommand(newDeliveriesCmd(f), newLogsCmd(f))
	cmd.AddCommand(newSeedCmd(f), newExportCmd(f))
	cmd.AddCommand(newRecordCmd(f), newVerifyCmd(f), newReplayCmd(f))
	return cmd
}

// Control calls a /_sandbox endpoint on the sandbox the verbs act on
// (cmdutil.ResolveSandbox: --sandbox-url, BNPL_SANDBOX_URL, a loopback
// base URL where a sandbox answers, else the embedded state). The embedded
// one is called through its in-process transport: both go through the same
// handler, so the verbs behave the same either way.
func Control(ctx context.Context, f *cmdutil.Factory, method, path string, query url.Values, body any) (json.RawMessage, error) {
	t, err := f.ResolveSandbox(ctx)
	if err != nil {
		return nil, err
	}
	req := api.RawRequest{Method: method, Path: path, Query: query}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		req.Body = b
		req.Header = http.Header{"Content-Type": {"application/json"}}
	}
	resp, err := t.Client.Raw(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func newMoveCmd(f *cmdutil.Factory, verb, short, what string) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " <" + strings.ReplaceAll(what, " or ", "-id | ") + "-id | order:REF>",
		Short: short,
		Example: fmt.Sprintf(`  bnpl sandbox %s 3fa85f64-5717-4562-b3fc-2c963f66afa6
  bnpl sandbox %s 3fa85f64-5717-4562-b3fc-2c963f66afa6 --sandbox-url http://127.0.0.1:8700`, verb, verb),
		Long: fmt.Sprintf("%s.\n\nThe argument is a %s id, or order:REF for the payment of the\nmerchant's order number REF, looked up with the key the other commands use.", short, what),
		Args: cmdutil.ExactArgs(1, "a "+what+" id, or order:REF"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if _, ok := cmdutil.OrderRef(id); ok {
				if err := cmdutil.CheckPaymentArg(id); err != nil {
					return err
				}
			} else if err := cmdutil.CheckUUID(what, id); err != nil {
				return err
			}
			id, err := paymentArg(cmd.Context(), f, id)
			if err != nil {
				return err
			}
			path := "/_sandbox/payments/" + id + "/" + verb
			raw, err := Control(cmd.Context(), f, http.MethodPost, path, nil, nil)
			if err != nil {
				return customerMoveHint(err, id)
			}
			return printPayment(f, raw)
		},
	}
}

// paymentArg is the payment id a verb's argument names: an id as it is;
// order:REF found with the client the other commands use (the merchant and
// key they resolve), since the sandbox's own control calls carry no key.
func paymentArg(ctx context.Context, f *cmdutil.Factory, arg string) (string, error) {
	if _, ok := cmdutil.OrderRef(arg); !ok {
		return arg, nil
	}
	client, err := f.Client()
	if err != nil {
		return "", err
	}
	return f.OrderLookup().PaymentID(ctx, client, arg)
}

func printPayment(f *cmdutil.Factory, raw json.RawMessage) error {
	var p api.Payment
	printer, err := readAnswer(f, raw, &p, "a payment")
	if err != nil {
		return err
	}
	return printer.Object(p.Raw(), payments.Detail(&p))
}

func newResetCmd(f *cmdutil.Factory) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "reset",
		Short: "Forget every payment, session, dispute and webhook of the sandbox (asks first on a terminal; --yes skips)",
		Long: `Forget every payment, session, dispute and webhook of the sandbox. With --force
the embedded sandbox's state file is not opened at all: it is moved aside (to
FILE.broken-TIME, with its -wal and -shm companions) and a new one is made, which
recovers from a state file that cannot be opened, read or written (exit code 12).`,
		Example: "  bnpl sandbox reset\n  bnpl sandbox reset --sandbox-url http://127.0.0.1:8700 --yes\n  bnpl sandbox reset --force",
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if force {
				return forceReset(cmd.Context(), f)
			}
			t, err := f.ResolveSandbox(cmd.Context())
			if err != nil {
				return err
			}
			if t.Unreached != "" {
				// The person meant a running sandbox: wiping the embedded
				// one instead would lose data they did not mean to.
				return &cmdutil.UnreachedError{Where: t.Unreached, What: "reset"}
			}
			if err := f.AskFirst(cmd.Context(), "Forget every payment, session, dispute and webhook of "+t.Name+"?", cmdutil.ErrKept); err != nil {
				return err
			}
			if _, err := Control(cmd.Context(), f, http.MethodPost, "/_sandbox/reset", nil, nil); err != nil {
				return err
			}
			f.Noticef("sandbox reset")
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "move the embedded state file aside unopened and make a new one (for a state file that cannot be used)")
	return cmd
}

func newClockCmd(f *cmdutil.Factory) *cobra.Command {
	var advance string
	cmd := &cobra.Command{
		Use:   "clock",
		Short: "Show the sandbox's time, or move it forward so timers fire without waiting",
		Long: `The sandbox keeps its own time: the machine's clock plus an offset stored with its
state. Moving it forward makes sessions, unfinished payments and authorizations
expire, and dispute deadlines pass, without waiting.`,
		Example: "  bnpl sandbox clock\n  bnpl sandbox clock --advance 31m\n  bnpl sandbox clock --advance 8d",
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			method, path := http.MethodGet, "/_sandbox/clock"
			var q url.Values
			if advance != "" {
				method, path, q = http.MethodPost, "/_sandbox/clock/advance", url.Values{"by": {advance}}
			}
			raw, err := Control(cmd.Context(), f, method, path, q, nil)
			if err != nil {
				return err
			}
			printer, err := f.Printer()
			if err != nil {
				return err
			}
			return printer.Object(raw, nil)
		},
	}
	cmd.Flags().StringVar(&advance, "advance", "", "move the clock forward by a duration (90s, 1h30m, 7d)")
	return cmd
}

// notCreated reads the status of the sandbox's refusal of a customer's
// move on a payment past its checkout.
var notCreated = regexp.MustCompile(`only CREATED payments can be \w+; this one is ([A-Z]+)`)

// customerMoveHint adds to the refusal of approve, reject or cancel of a
// payment no longer CREATED what can be done with it instead.
func customerMoveHint(err error, id string) error {
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest {
		return err
	}
	m := notCreated.FindStringSubmatch(ae.Message)
	if m == nil {
		return err
	}
	hint := map[string]string{
		"AUTHORIZED": "the customer approved it already: the merchant moves it now, with bnpl payments capture " + id + " --amount AMOUNT or bnpl payments close " + id,
		"CLOSED":     "it is closed: the customer has nothing left to do; bnpl payments get " + id + " shows it",
		"REJECTED":   "it was rejected: start a new checkout (bnpl checkout create) for the customer to approve",
		"EXPIRED":    "its checkout was cancelled or ran out (30 minutes after it opened): start a new one (bnpl checkout create)",
	}[m[1]]
	if hint == "" {
		return err
	}
	return cmdutil.WithHint(err, hint)
}
