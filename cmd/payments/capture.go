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

// CaptureOptions are the inputs of `payments capture`.
type CaptureOptions struct {
	ID             string
	TaxAmount      string
	ShippingAmount string
	DiscountAmount string
	Bulk           BulkOptions

	amountMove
	MoveDeps
}

// captureLong is the help of `payments capture`.
const captureLong = `Capture funds of an AUTHORIZED payment: part of it with --amount, or whatever is
left with --full. Capturing the whole remainder closes the payment.

The payment is read first, so that an amount with too many decimals for its
currency, above what is left to capture, or a payment that is not AUTHORIZED is
refused locally (exit 2) with nothing sent; so is an authorization that has
expired, and a tax, shipping or discount amount above the capture amount. If that
read fails (no answer, a 5xx), nothing was captured and the command says so.

--dry-run makes that read too (it changes nothing), settles --full and runs every
local check, then prints the capture it would send. It never asks for
confirmation and needs no --yes, even in live mode.` + orderDryRunHelp + `

Retries are safe: every attempt carries one reference_id, the service's
idempotency key. Without --reference-id one is made and printed on stderr before
anything is sent; run the command again with it after an unknown outcome (exit 10)
and the capture is never made twice. A move found already made is reported as a
success. A reference_id the payment already holds for another amount (or other
tax, shipping or discount) is refused locally (exit 2): the service would move
nothing. If, after the capture, the payment does not hold a capture with that
reference_id and amount (another process used the id meanwhile), the outcome is
unknown (exit 10) and the command says what the payment holds. A reference id
that is not UTF-8 or is longer than 255 characters is refused (exit 2).

In live mode the capture is confirmed on the terminal (naming the amount, the
payment and the merchant); --yes skips the question, and without a terminal the
capture is refused unless --yes is given. Answering anything but yes exits 2;
Ctrl-C at the question exits 130; either way nothing is sent.

With --input the rows of a CSV (header payment_id,amount,reference_id,
tax_amount,shipping_amount,discount_amount) or JSON-lines file are captured, amount
"full" taking what the earlier rows of its payment leave when it is sent. Every row is
checked before it is sent as a single capture is (a row that would be refused fails,
nothing sent); --dry-run reads the payments and prints that plan. See --journal,
--report and --retry-failed.`

func newCaptureCmd(f *cmdutil.Factory, run func(context.Context, *CaptureOptions) error) *cobra.Command {
	opts := &CaptureOptions{MoveDeps: newMoveDeps(f)}
	return newMoveCmd(f, moveCmd{
		use:   "capture <payment-id | order:REF> (--amount A | --full)",
		short: "Capture funds of an authorized payment, or of many from a file",
		long:  captureLong,
		example: `  bnpl payments capture 3fa85f64-5717-4562-b3fc-2c963f66afa6 --amount 500.00
  bnpl payments capture 3fa85f64-5717-4562-b3fc-2c963f66afa6 --full
  bnpl payments capture 3fa85f64-5717-4562-b3fc-2c963f66afa6 --amount 100 --reference-id ORDER-1001-C1 --tax-amount 4.76
  bnpl payments capture 3fa85f64-5717-4562-b3fc-2c963f66afa6 --amount 10 --dry-run
  bnpl payments capture --input testdata/captures.csv --report captures-report.csv`,
		completes: api.StatusAuthorized,
		flags: opts.flags("captured", "amount to capture, including tax and shipping, excluding discounts", "capture whatever is left to capture",
			moveFlag{name: "tax-amount", usage: "tax included in the capture", text: &opts.TaxAmount, amount: true},
			moveFlag{name: "shipping-amount", usage: "shipping included in the capture", text: &opts.ShippingAmount, amount: true},
			moveFlag{name: "discount-amount", usage: "discount of the capture, zero or more", text: &opts.DiscountAmount, amount: true}),
		id: &opts.ID, bulk: &opts.Bulk, deps: &opts.MoveDeps,
		run: runWith(run, captureRun, opts),
	})
}

func captureRun(ctx context.Context, o *CaptureOptions) error {
	// Every local check that needs no payment comes before the read and
	// any prompt: the items file, and the parts of a fixed amount.
	var itemsJSON []byte
	req := api.CaptureRequest{ReferenceID: o.ReferenceID}
	return o.runMove(ctx, move{op: bulk.OpCapture, bulk: &o.Bulk, id: &o.ID, before: "capture on", read: "captured", noun: "capture",
		early: func() (err error) {
			if itemsJSON, err = loadItemsFile(o.ItemsFile, o.IO.In); err != nil {
				return err
			}
			return o.checkPartsEarly()
		},
		prepare: func(_ context.Context, _ *api.Client, p *api.Payment, target *config.Target) (string, bool, error) {
			madeBefore, err := o.prepare(p, &req, itemsJSON)
			what := fmt.Sprintf("capture %s on payment %s of %s", amountText(req.Amount, p.Currency), o.ID, merchantOf(target))
			return what, madeBefore, err
		},
		send: func(ctx context.Context, client *api.Client) (*api.MoveResult, error) {
			req.ReferenceID = o.referenceFor(req.ReferenceID)
			return client.Capture(ctx, o.ID, req)
		},
	})
}

// prepare settles the capture from the flags and the payment as read and
// runs its local checks: the amount and its parts in the payment's
// currency, the items, and a reference_id the payment holds for another
// capture, which would move nothing (the same capture again is a safe
// re-run: madeBefore).
func (o *CaptureOptions) prepare(p *api.Payment, req *api.CaptureRequest, itemsJSON []byte) (madeBefore bool, err error) {
	currency := p.Currency
	if err := o.resolveAmount(p, req); err != nil {
		return false, err
	}
	if req.TaxAmount, err = optionalAmount("tax-amount", o.TaxAmount, currency); err != nil {
		return false, err
	}
	if req.ShippingAmount, err = optionalAmount("shipping-amount", o.ShippingAmount, currency); err != nil {
		return false, err
	}
	if req.DiscountAmount, err = optionalAmount("discount-amount", o.DiscountAmount, currency); err != nil {
		return false, err
	}
	if err := checkPartsOfAmount(req.Amount, currency,
		amountPart{"tax-amount", req.TaxAmount}, amountPart{"shipping-amount", req.ShippingAmount}, amountPart{"discount-amount", req.DiscountAmount}); err != nil {
		return false, err
	}
	if req.Items, err = itemsOf(itemsJSON, o.ItemsFile, currency); err != nil {
		return false, err
	}
	o.madeBefore, err = api.CheckCaptureReference(p, *req)
	return o.madeBefore, err
}

// checkPartsEarly refuses, before the payment is read, tax, shipping or
// discount above a fixed --amount (a --full amount is known only after the
// read, and checked then).
func (o *CaptureOptions) checkPartsEarly() error {
	if o.Full {
		return nil
	}
	amount, err := parseAmountFlag("amount", o.Amount, "", true)
	if err != nil {
		return err
	}
	var parts []amountPart
	for _, f := range [][2]string{{"tax-amount", o.TaxAmount}, {"shipping-amount", o.ShippingAmount}, {"discount-amount", o.DiscountAmount}} {
		d, err := optionalAmount(f[0], f[1], "")
		if err != nil {
			return err
		}
		parts = append(parts, amountPart{f[0], d})
	}
	return checkPartsOfAmount(amount, "", parts...)
}

// resolveAmount settles the amount from the flags and the payment as read.
// A capture already made under the given reference_id is a re-run of it: it
// goes out unchanged, with its recorded amount for --full, and the client
// reports it made instead of refusing it as too much. With other content
// it is refused once the request is complete (api.CheckCaptureReference).
func (o *CaptureOptions) resolveAmount(p *api.Payment, req *api.CaptureRequest) (err error) {
	var prior *decimal.Decimal
	if c := p.CaptureByReference(o.ReferenceID); o.ReferenceID != "" && c != nil {
		prior = &c.Amount
	}
	req.Amount, err = o.settle(p, prior, "capture", "is left to capture", o.capturable)
	return err
}

// capturable is what may still be captured of p, or why nothing may: what
// the service would refuse, refused locally.
func (o *CaptureOptions) capturable(p *api.Payment) (decimal.Decimal, error) {
	cur := p.Currency
	if err := statusRefusal(p, "capture"); err != nil {
		return decimal.Zero, err
	}
	if err := o.expiredRefusal(p, "capture"); err != nil {
		return decimal.Zero, err
	}
	if p.Status == api.StatusClosed {
		return decimal.Zero, cmdutil.Refuse("nothing more can be captured; refunds still work (`bnpl payments refund`)",
			"payment %s is already closed: captured %s of %s", p.ID, amountText(p.Captured(), cur), amountText(p.Amount, cur))
	}
	if p.Status != api.StatusAuthorized {
		return decimal.Zero, cmdutil.Refuse("only AUTHORIZED payments can be captured", "cannot capture payment %s: it is %s", p.ID, p.Status)
	}
	left := p.Capturable()
	if o.Full && !left.IsPositive() {
		return left, cmdutil.Refuse("close the payment instead: `bnpl payments close "+p.ID+"`",
			"nothing is left to capture on payment %s", p.ID)
	}
	return left, nil
}
