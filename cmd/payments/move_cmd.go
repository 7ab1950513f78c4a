package payments

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/recent"
)

// moveCmd defines the command of one money move (capture, refund, close):
// its words and its flags, as data. newMoveCmd builds every move's command
// the same way from it: one payment id or --input, the single move's flags
// refused with --input, exactly one of --amount and --full where the move
// takes an amount, and every amount's syntax checked before anything is
// read; then the move's run, which is the body the moves share (runMove).
type moveCmd struct {
	use, short, long, example string
	// completes is the status of the payments shell completion offers.
	completes string
	// flags are the single move's own flags, in the order help lists them.
	flags []moveFlag
	id    *string
	bulk  *BulkOptions
	deps  *MoveDeps
	run   func(ctx context.Context) error
}

// moveFlag is one flag of a single move: a text flag (text) or --full
// (on). An amount's syntax is checked before anything is read.
type moveFlag struct {
	name, usage string
	text        *string
	on          *bool
	amount      bool
}

func newMoveCmd(f *cmdutil.Factory, m moveCmd) *cobra.Command {
	cmd := &cobra.Command{
		Use:               m.use,
		Short:             m.short,
		Long:              m.long,
		Example:           m.example,
		Args:              moveArgs,
		ValidArgsFunction: recent.CompleteMovePaymentIDs(f.Getenv, m.completes),
		RunE: func(cmd *cobra.Command, args []string) error {
			m.deps.bind(f)
			id, err := paymentIDArg(cmd, args, m.bulk)
			if err != nil {
				return err
			}
			*m.id = id
			if err := m.checkFlags(cmd); err != nil {
				return err
			}
			return m.run(cmd.Context())
		},
	}
	for _, fl := range m.flags {
		if fl.on != nil {
			cmd.Flags().BoolVar(fl.on, fl.name, false, fl.usage)
		} else {
			cmd.Flags().StringVar(fl.text, fl.name, "", fl.usage)
		}
	}
	addBulkFlags(cmd, m.bulk)
	return cmd
}

// checkFlags refuses, before anything is read, flags that do not go
// together: a single move's with --input, no amount or two, an amount
// that is no amount.
func (m moveCmd) checkFlags(cmd *cobra.Command) error {
	var names []string
	var amounts [][2]string
	var amount string
	var full *bool
	for _, fl := range m.flags {
		names = append(names, fl.name)
		switch {
		case fl.on != nil:
			full = fl.on
		case fl.amount:
			amounts = append(amounts, [2]string{fl.name, *fl.text})
			if fl.name == "amount" {
				amount = *fl.text
			}
		}
	}
	if m.bulk.FromFile != "" {
		return refuseSingleFlags(cmd, names...)
	}
	if full == nil {
		return nil
	}
	if err := amountChoice(amount, *full); err != nil {
		return err
	}
	return amountsSyntax(amounts...)
}

// amountMove is what the moves that take an amount (capture, refund)
// share of their inputs.
type amountMove struct {
	Amount      string
	Full        bool
	ReferenceID string
	ItemsFile   string

	// madeBefore: the payment already showed this reference_id.
	madeBefore bool
}

// flags are the flags of an amountMove; done names what the move does to
// its items in their help ("refunded"), amountUsage and fullUsage say what --amount and
// --full take, and extra are the move's own flags, listed between
// --reference-id and --items-file.
func (a *amountMove) flags(done, amountUsage, fullUsage string, extra ...moveFlag) []moveFlag {
	fl := []moveFlag{
		{name: "amount", usage: amountUsage, text: &a.Amount, amount: true},
		{name: "full", usage: fullUsage, on: &a.Full},
		{name: "reference-id", usage: "idempotency key; default a new UUID, printed on stderr", text: &a.ReferenceID},
	}
	fl = append(fl, extra...)
	return append(fl, moveFlag{name: "items-file", usage: "JSON array of the items " + done + " (- for stdin)", text: &a.ItemsFile})
}

// settle is the amount of a move on p: a re-run's, when the payment
// already holds a move under the given reference_id (prior: it goes out
// unchanged, with its recorded amount for --full); otherwise, once left has
// checked the payment and said what is left for the move, all of it for
// --full or --amount, refused above it. leftWords says what left is ("is
// left to capture").
func (a *amountMove) settle(p *api.Payment, prior *decimal.Decimal, verb, leftWords string, left func(*api.Payment) (decimal.Decimal, error)) (decimal.Decimal, error) {
	cur := p.Currency
	if prior != nil && a.Full {
		return *prior, nil
	}
	if prior != nil {
		return parseAmountFlag("amount", a.Amount, cur, true)
	}
	most, err := left(p)
	if err != nil || a.Full {
		return most, err
	}
	amount, err := parseAmountFlag("amount", a.Amount, cur, true)
	if err != nil {
		return amount, err
	}
	if amount.GreaterThan(most) {
		return amount, cmdutil.Refuse(fmt.Sprintf("%s at most %s, or use --full", verb, money.Display(most, cur)),
			"cannot %s %s on payment %s: only %s %s", verb, amountText(amount, cur), p.ID, amountText(most, cur), leftWords)
	}
	return amount, nil
}

// runWith is a command's run: its own, or the one a test gave.
func runWith[O any](test, own func(context.Context, O) error, opts O) func(context.Context) error {
	if test != nil {
		own = test
	}
	return func(ctx context.Context) error { return own(ctx, opts) }
}
