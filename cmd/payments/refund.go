package payments

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
)

// RefundOptions are the inputs of `payments refund`.
type RefundOptions struct {
	ID     string
	Reason string
	Bulk   BulkOptions

	amountMove
	MoveDeps
}

func newRefundCmd(f *cmdutil.Factory, run func(context.Context, *RefundOptions) error) *cobra.Command {
	opts := &RefundOptions{MoveDeps: newMoveDeps(f)}
	return newMoveCmd(f, moveCmd{
		use:   "refund <payment-id | order:REF> (--amount A | --full)",
		short: "Refund captured money of a closed payment, or of many from a file",
		long: `Refund captured money of a CLOSED payment: part of it with --amount, or everything
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
		example: `  bnpl payments refund 3fa85f64-5717-4562-b3fc-2c963f66afa6 --amount 100.00 --reason "returned bottle"
  bnpl payments refund 3fa85f64-5717-4562-b3fc-2c963f66afa6 --full
  bnpl payments refund 3fa85f64-5717-4562-b3fc-2c963f66afa6 --amount 100 --reference-id RET-1001 -o json --jq .refunds
  bnpl payments refund --input testdata/refunds.csv --report refunds-report.csv`,
		completes: api.StatusClosed,
		flags: opts.flags("refunded", "amount to refund", "refund everything still refundable",
			moveFlag{name: "reason", usage: "why the money is returned", text: &opts.Reason}),
		id: &opts.ID, bulk: &opts.Bulk, deps: &opts.MoveDeps,
		run: runWith(run, refundRun, opts),
	})
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

// resolveAmount settles the amount from the flags and the payment as read.
// A refund already made under the given reference_id is a re-run: send it
// as it was, and let the client report it made.
func (o *RefundOptions) resolveAmount(p *api.Payment, req *api.RefundRequest) (err error) {
	var prior *decimal.Decimal
	if r := p.RefundByReference(o.ReferenceID); o.ReferenceID != "" && r != nil {
		prior = &r.Amount
	}
	req.Amount, err = o.settle(p, prior, "refund", "is still refundable", refundable)
	return err
}

// refundable is what may still be refunded of p, or why nothing may: the
// refusal explained locally.
func refundable(p *api.Payment) (decimal.Decimal, error) {
	if err := statusRefusal(p, "refund"); err != nil {
		return decimal.Zero, err
	}
	switch {
	case p.Status == api.StatusAuthorized:
		hint := fmt.Sprintf("nothing of it was captured, so no money was taken: `bnpl payments close %s` releases the authorization", p.ID)
		if len(p.Captures) > 0 {
			hint = fmt.Sprintf("`bnpl payments close %s` releases what is not captured and closes it; then refund what was captured", p.ID)
		}
		return decimal.Zero, cmdutil.Refuse(hint,
			"cannot refund payment %s: it is AUTHORIZED; only CLOSED payments with captures can be refunded", p.ID)
	case p.Status != api.StatusClosed:
		return decimal.Zero, cmdutil.Refuse("only CLOSED payments with captures can be refunded", "cannot refund payment %s: it is %s", p.ID, p.Status)
	case len(p.Captures) == 0:
		return decimal.Zero, cmdutil.Refuse("closing without a capture charged the customer nothing",
			"cannot refund payment %s: it was closed without captures, so there is nothing to refund", p.ID)
	}
	left := p.Refundable()
	if !left.IsPositive() {
		return left, cmdutil.Refuse("`bnpl payments get "+p.ID+"` lists the refunds",
			"nothing is left to refund on payment %s: all %s captured has been refunded", p.ID, amountText(p.Captured(), p.Currency))
	}
	return left, nil
}
