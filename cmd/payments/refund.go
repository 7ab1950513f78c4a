package payments

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/recent"
)

// RefundOptions are the inputs of `payments refund`.
type RefundOptions struct {
	ID          string
	Amount      string
	Full        bool
	ReferenceID string
	Reason      string
	ItemsFile   string
	Bulk        BulkOptions

	// madeBefore: the payment already showed this reference_id.
	madeBefore bool

	MoveDeps
}

func newRefundCmd(f *cmdutil.Factory, run func(context.Context, *RefundOptions) error) *cobra.Command {
	opts := &RefundOptions{MoveDeps: newMoveDeps(f)}
	cmd := &cobra.Command{
		Use:   "refund <payment-id | order:REF> (--amount A | --full)",
		Short: "Refund captured money of a closed payment, or of many from a file",
		Long: `Refund captured money of a CLOSED payment: part of it with --amount, or everything
still refundable with --full.

The payment is read first, so that an amount with too many decimals, above what is
still refundable, or a payment that is not CLOSED or has no captures is refused
locally (exit 2) with the reason and nothing sent; so is a live payment under an
open dispute (the dispute is named). If that read fails (no answer,
a 5xx), nothing was refunded and the command says so.

--dry-run makes that read too (it changes nothing), settles --full and runs every
local check, then prints the refund it would send. It never asks for
confirmation and needs no --yes, even in live mode.` + orderDryRunHelp + `

Retries are safe: every attempt carries one reference_id, the service's
idempotency key. Without --reference-id one is made and printed on stderr before
anything is sent; run the command again with it after an unknown outcome (exit 10).
A reference_id the payment already holds for another amount is refused locally
(exit 2): the service would move nothing. If, after the refund, the payment does
not hold a refund with that reference_id and amount, the outcome is unknown
(exit 10) and the command says what the payment holds. A reference id or reason
that is not UTF-8, or too long (255 and 4096 characters), is refused (exit 2).

In live mode the refund is confirmed on the terminal; --yes skips the question,
and without a terminal the refund is refused unless --yes is given. Answering
anything but yes exits 2; Ctrl-C at the question exits 130.

With --input the rows of a CSV (header payment_id,amount,reference_id,reason)
or JSON-lines file are refunded. Every row is checked before it is sent as a single
refund is, an open dispute included (a row that would be refused fails, nothing sent);
--dry-run reads the payments and prints that plan. See --journal, --report and
--retry-failed.`,
		Example: `  bnpl payments refund 3fa85f64-5717-4562-b3fc-2c963f66afa6 --amount 100.00 --reason "returned bottle"
  bnpl payments refund 3fa85f64-5717-4562-b3fc-2c963f66afa6 --full
  bnpl payments refund 3fa85f64-5717-4562-b3fc-2c963f66afa6 --amount 100 --reference-id RET-1001 -o json --jq .refunds
  bnpl payments refund --input testdata/refunds.csv --report refunds-report.csv`,
		Args:              moveArgs,
		ValidArgsFunction: recent.CompleteMovePaymentIDs(f.Getenv, api.StatusClosed),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.bind(f)
			id, err := paymentIDArg(cmd, args, &opts.Bulk)
			if err != nil {
				return err
			}
			opts.ID = id
			if opts.Bulk.FromFile != "" {
				if err := refuseSingleFlags(cmd, "amount", "full", "reference-id", "reason", "items-file"); err != nil {
					return err
				}
			} else if err := amountChoice(opts.Amount, opts.Full); err != nil {
				return err
			} else if err := amountsSyntax([2]string{"amount", opts.Amount}); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return refundRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Amount, "amount", "", "amount to refund")
	fl.BoolVar(&opts.Full, "full", false, "refund everything still refundable")
	fl.StringVar(&opts.ReferenceID, "reference-id", "", "idempotency key; default a new UUID, printed on stderr")
	fl.StringVar(&opts.Reason, "reason", "", "why the money is returned")
	fl.StringVar(&opts.ItemsFile, "items-file", "", "JSON array of the items refunded (- for stdin)")
	addBulkFlags(cmd, &opts.Bulk)
	return cmd
}

func refundRun(ctx context.Context, o *RefundOptions) error {
	// The items file is checked before the read and any prompt.
	var itemsJSON []byte
	req := api.RefundRequest{ReferenceID: o.ReferenceID, Reason: o.Reason}
	return o.runMove(ctx, move{op: bulk.OpRefund, bulk: &o.Bulk, id: &o.ID, before: "refund on", read: "refunded", noun: "refund",
		early: func() (err error) {
			itemsJSON, err = loadItemsFile(o.ItemsFile, o.IO.In)
			return err
		},
		prepare: func(ctx context.Context, client *api.Client, p *api.Payment, target *config.Target) (string, bool, error) {
			madeBefore, err := o.prepare(ctx, client, p, &req, itemsJSON)
			what := fmt.Sprintf("refund %s on payment %s of %s", amountText(req.Amount, p.Currency), o.ID, merchantOf(target))
			return what, madeBefore, err
		},
		send: func(ctx context.Context, client *api.Client) (*api.MoveResult, error) {
			req.ReferenceID = o.referenceFor(req.ReferenceID)
			return client.Refund(ctx, o.ID, req)
		},
	})
}

// prepare settles the refund from the flags and the payment as read and
// runs its local checks: an open dispute, the amount, the items, and a
// reference_id the payment holds for another refund, which would move
// nothing (the same refund again is a safe re-run: madeBefore).
func (o *RefundOptions) prepare(ctx context.Context, client *api.Client, p *api.Payment, req *api.RefundRequest, itemsJSON []byte) (madeBefore bool, err error) {
	if err := o.disputeRefusal(ctx, client, p); err != nil {
		return false, err
	}
	if err := o.resolveAmount(p, req); err != nil {
		return false, err
	}
	if req.Items, err = itemsOf(itemsJSON, o.ItemsFile, p.Currency); err != nil {
		return false, err
	}
	o.madeBefore, err = api.CheckRefundReference(p, *req)
	return o.madeBefore, err
}

// disputeRefusal refuses locally a refund of a live closed payment under
// an open dispute, which the service would refuse (409). When the disputes
// cannot be read, the refund goes ahead and the service decides.
func (o *RefundOptions) disputeRefusal(ctx context.Context, client *api.Client, p *api.Payment) error {
	if p.IsTest || p.Status != api.StatusClosed {
		return nil
	}
	disputes, err := client.PaymentDisputes(ctx, p.ID)
	if err != nil {
		o.Notice("warning: could not read the payment's disputes (%v); the service will refuse the refund if one is open", err)
		return nil
	}
	if d := api.ActiveDispute(disputes); d != nil {
		return cmdutil.Refuse(fmt.Sprintf("refunds wait until the dispute is resolved; see `bnpl disputes get %s`", d.ID),
			"cannot refund payment %s: dispute %s is open (status %s); nothing was sent", p.ID, d.ID, d.Status)
	}
	return nil
}

// resolveAmount settles the amount from the flags and the payment as read,
// and explains locally why a refund cannot be made.
func (o *RefundOptions) resolveAmount(p *api.Payment, req *api.RefundRequest) error {
	cur := p.Currency
	// A refund already made under the given reference_id is a re-run:
	// send it as it was, and let the client report it made.
	if prior := p.RefundByReference(o.ReferenceID); o.ReferenceID != "" && prior != nil {
		if o.Full {
			req.Amount = prior.Amount
		} else {
			amount, err := parseAmountFlag("amount", o.Amount, cur, true)
			if err != nil {
				return err
			}
			req.Amount = amount
		}
		return nil
	}
	if err := statusRefusal(p, "refund"); err != nil {
		return err
	}
	switch {
	case p.Status == api.StatusAuthorized:
		hint := fmt.Sprintf("nothing of it was captured, so no money was taken: `bnpl payments close %s` releases the authorization", p.ID)
		if len(p.Captures) > 0 {
			hint = fmt.Sprintf("`bnpl payments close %s` releases what is not captured and closes it; then refund what was captured", p.ID)
		}
		return cmdutil.Refuse(hint,
			"cannot refund payment %s: it is AUTHORIZED; only CLOSED payments with captures can be refunded", p.ID)
	case p.Status != api.StatusClosed:
		return cmdutil.Refuse("only CLOSED payments with captures can be refunded", "cannot refund payment %s: it is %s", p.ID, p.Status)
	case len(p.Captures) == 0:
		return cmdutil.Refuse("closing without a capture charged the customer nothing",
			"cannot refund payment %s: it was closed without captures, so there is nothing to refund", p.ID)
	}
	refundable := p.Refundable()
	if !refundable.IsPositive() {
		return cmdutil.Refuse("`bnpl payments get "+p.ID+"` lists the refunds",
			"nothing is left to refund on payment %s: all %s captured has been refunded", p.ID, amountText(p.Captured(), cur))
	}
	if o.Full {
		req.Amount = refundable
		return nil
	}
	amount, err := parseAmountFlag("amount", o.Amount, cur, true)
	if err != nil {
		return err
	}
	if amount.GreaterThan(refundable) {
		return cmdutil.Refuse(fmt.Sprintf("refund at most %s, or use --full", money.Display(refundable, cur)),
			"cannot refund %s on payment %s: only %s is still refundable", amountText(amount, cur), p.ID, amountText(refundable, cur))
	}
	req.Amount = amount
	return nil
}
