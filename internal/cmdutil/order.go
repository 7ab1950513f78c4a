package cmdutil

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/paysearch"
	"github.com/bnpl-cli/bnpl/internal/walk"
)

// OrderPrefix marks a payment argument given by the merchant's order
// number: `bnpl payments get order:ORDER-1001`.
const OrderPrefix = "order:"

// PaymentArgHelp is what a payment argument takes, for help texts.
const PaymentArgHelp = "a payment id, or order:REF for the payment of the merchant's order number REF"

// OrderRef returns the order number of an order:REF argument.
func OrderRef(arg string) (ref string, ok bool) {
	if len(arg) < len(OrderPrefix) || !strings.EqualFold(arg[:len(OrderPrefix)], OrderPrefix) {
		return "", false
	}
	return strings.TrimSpace(arg[len(OrderPrefix):]), true
}

// CheckPaymentArg validates a payment argument locally: a payment id, or
// order: and an order number.
func CheckPaymentArg(arg string) error {
	if ref, ok := OrderRef(arg); ok {
		if ref == "" {
			return Refuse("write the order number after the colon: order:ORDER-1001", "%q names no order number", arg)
		}
		return nil
	}
	if err := CheckUUID("payment", arg); err != nil {
		return Refuse("payment ids are UUIDs such as 3fa85f64-5717-4562-b3fc-2c963f66afa6; order:REF finds a payment by its order number",
			"invalid payment id %q: not a UUID", arg)
	}
	return nil
}

// OrderLookup finds the payment of an order:REF argument. Its fields only
// say how the search shows itself; the zero value (or nil) is silent.
type OrderLookup struct {
	// IO and Quiet decide whether a terminal sees the pages read; Quiet
	// is asked when the search starts (flags are parsed by then).
	IO    *output.IOStreams
	Quiet func() bool
	// Notice says on stderr which payment an order number named.
	Notice func(format string, args ...any)
	// Scope names whose payments were searched ("merchant kw-sandbox
	// (test mode)"), for the hint of an order not found; nil or "" says
	// nothing of it.
	Scope func() string
}

// OrderLookup is how the factory's commands find a payment by its order.
func (f *Factory) OrderLookup() *OrderLookup {
	return &OrderLookup{IO: f.IO, Quiet: func() bool { return f.Global.Quiet }, Notice: f.Noticef, Scope: func() string {
		t, err := f.Target()
		if err != nil {
			return ""
		}
		mode := "test mode"
		if t.Live {
			mode = "live mode"
		}
		return t.Merchant() + " (" + mode + ")"
	}}
}

// PaymentID returns the payment id arg names: arg itself when it is an id;
// for order:REF, the one payment whose order number is REF, found in every
// status by one walk of the payments list (paysearch.ByOrder, as `payments
// list --order` searches). None is an OrderNotFoundError (exit 6); more than
// one an AmbiguousOrderError (exit 2) that lists them.
func (l *OrderLookup) PaymentID(ctx context.Context, client *api.Client, arg string) (string, error) {
	ref, ok := OrderRef(arg)
	if !ok {
		return arg, nil
	}
	var progress *Progress
	if l != nil {
		progress = NewProgress(l.IO, l.Quiet != nil && l.Quiet())
	} else {
		progress = NewProgress(nil, true)
	}
	progress.Show("searching every status for order %s", ref)
	// The sets' totals are known only as each starts: the pages read is
	// the count that only goes up.
	res, err := paysearch.ByOrder(ctx, client, ref, walk.DefaultConcurrency, func(read, _ int) {
		progress.Show("searching every status for order %s: %d pages read", ref, read)
	})
	progress.Done()
	if err != nil {
		return "", err
	}
	switch len(res.Payments) {
	case 0:
		nf := &OrderNotFoundError{Ref: ref, Searched: res.Searched}
		if l != nil && l.Scope != nil {
			nf.Scope = l.Scope()
		}
		return "", nf
	case 1:
		id := res.Payments[0].ID
		if l != nil && l.Notice != nil {
			l.Notice("order %s is payment %s", ref, id)
		}
		return id, nil
	}
	return "", &AmbiguousOrderError{Ref: ref, Payments: res.Payments}
}

// OrderNotFoundError is an order number no payment has.
type OrderNotFoundError struct {
	Ref      string
	Searched int
	// Scope names whose payments were searched, "" when unknown.
	Scope string
}

func (e *OrderNotFoundError) Error() string {
	return fmt.Sprintf("no payment with order number %s (searched %d %s, every status)", e.Ref, e.Searched, plural(e.Searched, "payment", "payments"))
}
func (e *OrderNotFoundError) ExitCode() int { return ExitNotFound }
func (e *OrderNotFoundError) Hint() string {
	// The likeliest miss is a payment of another merchant, region or
	// mode: the search sees one profile's payments only.
	if e.Scope != "" {
		return "only the payments of " + e.Scope + " were searched: an order of another merchant, region or mode is found with --profile NAME (or --live); order numbers match exactly, case included"
	}
	return "the search sees one profile's payments: an order of another merchant, region or mode is found with --profile NAME (or --live); order numbers match exactly, case included"
}

// AmbiguousOrderError is an order number more than one payment has (an
// order paid again after a first checkout failed): the person picks one.
type AmbiguousOrderError struct {
	Ref      string
	Payments []api.Payment
}

func (e *AmbiguousOrderError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "order number %s is on %d payments:", e.Ref, len(e.Payments))
	for i := range e.Payments {
		p := &e.Payments[i]
		created := ""
		if p.CreatedAt != nil {
			created = ", created " + output.FormatTime(*p.CreatedAt, output.TimeUTC, time.Time{})
		}
		fmt.Fprintf(&b, "\n  %s  %s, %s%s", p.ID, p.Status, money.Display(p.Amount, p.Currency), created)
	}
	return b.String()
}
func (e *AmbiguousOrderError) ExitCode() int { return ExitUsage }
func (e *AmbiguousOrderError) Hint() string {
	return "give the payment id of the one you mean instead of order:" + e.Ref
}
