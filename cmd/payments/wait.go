package payments

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// waitStatuses are the payment statuses `payments wait` can wait for.
var waitStatuses = []string{api.StatusCreated, api.StatusAuthorized, api.StatusClosed, api.StatusRejected, api.StatusExpired}

// listWords are the status words of `payments list --status` that name a
// payment status differently: "new" is CREATED, and the expired are among
// the "cancelled".
var listWords = map[string]string{"new": api.StatusCreated, "cancelled": api.StatusExpired}

// laterStatuses are the statuses a payment may still reach from each one.
// A payment in a final status, or past the awaited one, can stop the wait
// at once instead of at the timeout.
var laterStatuses = map[string][]string{
	api.StatusCreated:    {api.StatusAuthorized, api.StatusRejected, api.StatusExpired, api.StatusClosed},
	api.StatusAuthorized: {api.StatusClosed, api.StatusExpired},
}

// WaitOptions are the inputs of `payments wait`.
type WaitOptions struct {
	onePayment
	Status   string
	Timeout  time.Duration
	Interval time.Duration

	Now    func() time.Time
	Sleep  func(ctx context.Context, d time.Duration) error
	Notice func(format string, args ...any)
	// Progress is the line that says what the wait waits for (on a
	// terminal, or plain lines in CI); nil draws nothing.
	Progress func() *cmdutil.Progress
}

func newWaitCmd(f *cmdutil.Factory, run func(context.Context, *WaitOptions) error) *cobra.Command {
	opts := &WaitOptions{onePayment: newOnePayment(f, f.Printer), Notice: f.Noticef, Now: time.Now, Sleep: api.Sleep,
		Progress: func() *cmdutil.Progress { return cmdutil.NewProgress(f.IO, f.Global.Quiet) }}
	cmd := opts.command(f, &cobra.Command{
		Use:   "wait <payment-id | order:REF> --status S",
		Short: "Wait until a payment reaches a status (for CI)",
		Long: `Read the payment every --interval until its status is --status, then print it and
exit 0. Statuses: ` + strings.Join(waitStatuses, ", ") + ` (any case). While it waits, stderr
says what the payment is now: a line redrawn on a terminal, a plain line every 2s in CI.

The wait exits 13 when --wait-timeout passes first, and 14 at once when the payment
reaches a status from which the awaited one can no longer be reached (for example
REJECTED while waiting for AUTHORIZED). Errors of the reads keep their own
exit codes (6 for an unknown payment, 10 for the network); Ctrl-C exits 130.

--wait-timeout bounds the whole wait; the global --timeout bounds each read (the
older spelling --timeout for the whole wait still works, with a notice, for now).`,
		Example: `  bnpl payments wait 3fa85f64-5717-4562-b3fc-2c963f66afa6 --status AUTHORIZED
  bnpl payments wait 3fa85f64-5717-4562-b3fc-2c963f66afa6 --status closed --wait-timeout 2m --interval 5s
  bnpl payments wait order:ORDER-1001 --status AUTHORIZED -o json --jq .status`,
	}, opts.validate, runWith(run, waitRun, opts))
	fl := cmd.Flags()
	fl.StringVar(&opts.Status, "status", "", "the status to wait for (required): "+strings.Join(waitStatuses, ", "))
	fl.DurationVar(&opts.Timeout, "wait-timeout", 5*time.Minute, "give up after this long (exit 13)")
	// Before --wait-timeout, the whole wait was bounded by a --timeout of
	// its own, which hid the global one (the bound of each read).
	fl.DurationVar(&opts.Timeout, "timeout", 5*time.Minute, "give up after this long")
	f.Deprecate(fl, "timeout", "use --wait-timeout for the whole wait")
	fl.DurationVar(&opts.Interval, "interval", 2*time.Second, "time between reads")
	return cmd
}

func (o *WaitOptions) validate() error {
	if o.Status == "" {
		return cmdutil.UsageHint("statuses: "+strings.Join(waitStatuses, ", "), "give the status to wait for with --status")
	}
	o.Status = strings.ToUpper(strings.TrimSpace(o.Status))
	if to, ok := listWords[strings.ToLower(o.Status)]; ok {
		if o.Notice != nil {
			o.Notice("--status %s: waiting for %s", strings.ToLower(o.Status), to)
		}
		o.Status = to
	}
	known := false
	for _, s := range waitStatuses {
		known = known || s == o.Status
	}
	if !known {
		hint := "statuses: " + strings.Join(waitStatuses, ", ") + " (or the list's new, cancelled)"
		if meant := cmdutil.Closest(o.Status, lowerAll(waitStatuses)); meant != "" {
			hint = "did you mean " + strings.ToUpper(meant) + "? " + hint
		}
		return cmdutil.UsageHint(hint, "invalid --status %q", o.Status)
	}
	if o.Timeout <= 0 {
		return cmdutil.Usagef("--wait-timeout must be positive, got %s", o.Timeout)
	}
	if o.Interval <= 0 {
		return cmdutil.Usagef("--interval must be positive, got %s", o.Interval)
	}
	return nil
}

// WaitError ends a wait that did not see the status. It has codes of its
// own, so a script tells "not yet" (13, worth waiting longer) from "never"
// (14) without reading stderr.
type WaitError struct {
	PaymentID string
	Want      string
	Last      string
	TimedOut  bool
	Waited    time.Duration
}

func (e *WaitError) Error() string {
	if e.TimedOut {
		return fmt.Sprintf("timed out after %s waiting for payment %s to become %s: it is %s", e.Waited.Round(time.Second), e.PaymentID, e.Want, e.Last)
	}
	return fmt.Sprintf("payment %s is %s and can no longer become %s", e.PaymentID, e.Last, e.Want)
}

func (e *WaitError) ExitCode() int {
	if e.TimedOut {
		return cmdutil.ExitWaitTimedOut
	}
	return cmdutil.ExitWaitUnreachable
}

func (e *WaitError) Hint() string {
	if e.TimedOut {
		if e.Last == api.StatusCreated {
			return "the customer has not finished checkout; wait longer with --wait-timeout, or in the sandbox play the customer with `bnpl sandbox approve " + e.PaymentID + "`"
		}
		return "wait longer with --wait-timeout"
	}
	return "`bnpl payments get " + e.PaymentID + "` shows the payment"
}

func waitRun(ctx context.Context, o *WaitOptions) error {
	printer, client, err := o.open(ctx)
	if err != nil {
		return err
	}
	progress := cmdutil.NewProgress(nil, true)
	if o.Progress != nil {
		progress = o.Progress()
	}
	defer progress.Done()
	start := o.Now()
	deadline := start.Add(o.Timeout)
	last := ""
	for {
		p, err := client.GetPayment(ctx, o.ID)
		if err != nil {
			return err
		}
		if p.Status != last {
			if last != "" {
				progress.Clear()
				o.Notice("payment %s is now %s", o.ID, p.Status)
			}
			last = p.Status
		}
		if p.Status == o.Status {
			progress.Done()
			return printer.Object(p.Raw(), Detail(p))
		}
		if !canBecome(p.Status, o.Status) {
			return &WaitError{PaymentID: o.ID, Want: o.Status, Last: p.Status}
		}
		now := o.Now()
		if !now.Before(deadline) {
			return &WaitError{PaymentID: o.ID, Want: o.Status, Last: p.Status, TimedOut: true, Waited: now.Sub(start)}
		}
		// Short enough for 80 columns: the id is the one typed.
		progress.Show("waiting for %s: the payment is %s (%s of %s)", o.Status, p.Status,
			now.Sub(start).Round(time.Second), o.Timeout)
		if err := o.Sleep(ctx, min(o.Interval, deadline.Sub(now))); err != nil {
			return err
		}
	}
}

// lowerAll is words in lower case.
func lowerAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.ToLower(w)
	}
	return out
}

func canBecome(from, to string) bool {
	for _, s := range laterStatuses[from] {
		if s == to {
			return true
		}
	}
	return false
}
