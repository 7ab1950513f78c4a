package payments

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/recent"
)

// onePayment is what the commands of one payment (get, timeline, update,
// wait) share of their inputs: the payment their argument names (an id,
// or order:REF found by its order number), the client that reaches the
// service and the printer of the result.
type onePayment struct {
	ID      string
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	// Lookup finds the payment of an order:REF argument.
	Lookup *cmdutil.OrderLookup
}

func newOnePayment(f *cmdutil.Factory, printer func() (*output.Printer, error)) onePayment {
	return onePayment{Client: f.Client, Printer: printer, Lookup: f.OrderLookup()}
}

// command makes cmd a command of one payment: exactly one argument, a
// payment id or order:REF (completed from the payments seen), checked
// before check (nil for none) and run.
func (o *onePayment) command(f *cmdutil.Factory, cmd *cobra.Command, check func() error, run func(context.Context) error) *cobra.Command {
	cmd.Args = cmdutil.ExactArgs(1, cmdutil.PaymentArgHelp)
	cmd.ValidArgsFunction = recent.CompletePaymentIDs(f.Getenv)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.ID = args[0]
		if err := cmdutil.CheckPaymentArg(o.ID); err != nil {
			return err
		}
		if check != nil {
			if err := check(); err != nil {
				return err
			}
		}
		return run(cmd.Context())
	}
	return cmd
}

// open is the start of a command of one payment: its printer and client,
// then the payment's id, an order:REF resolved in place.
func (o *onePayment) open(ctx context.Context) (*output.Printer, *api.Client, error) {
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return nil, nil, err
	}
	if o.ID, err = o.Lookup.PaymentID(ctx, client, o.ID); err != nil {
		return nil, nil, err
	}
	return printer, client, nil
}

// read is the start of a command that shows one payment: open, then the
// payment read.
func (o *onePayment) read(ctx context.Context) (*output.Printer, *api.Client, *api.Payment, error) {
	printer, client, err := o.open(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	p, err := client.GetPayment(ctx, o.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	return printer, client, p, nil
}
