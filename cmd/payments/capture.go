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

// CaptureOptions are the inputs of `payments capture`.
type CaptureOptions struct {
	ID             string
	Amount         string
	Full           bool
	ReferenceID    string
	TaxAmount      string
	ShippingAmount string
	DiscountAmount string
	ItemsFile      string
	Bulk           BulkOptions

	// madeBefore: the payment already showed this reference_id.
	madeBefore bool

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

// checkFlags refuses, before anything is read, flags that do not go
// together: a single capture's with --input, no amount or two, an amount
// that is no amount.
func (opts *CaptureOptions) checkFlags(cmd *cobra.Command) error {
	if opts.Bulk.FromFile != "" {
		return refuseSingleFlags(cmd, "amount", "full", "reference-id", "tax-amount", "shipping-amount", "discount-amount", "items-file")
	}
	if err := amountChoice(opts.Amount, opts.Full); err != nil {
		return err
	}
	return amountsSyntax([2]string{"amount", opts.Amount}, [2]string{"tax-amount", opts.TaxAmount},
		[2]string{"shipping-amount", opts.ShippingAmount}, [2]string{"discount-amount", opts.DiscountAmount})
}

func newCaptureCmd(f *cmdutil.Factory, run func(context.Context, *CaptureOptions) error) *cobra.Command {
	opts := &CaptureOptions{MoveDeps: newMoveDeps(f)}
	cmd := &cobra.Command{
		Use:   "capture <payment-id | order:REF> (--amount A | --full)",
		Short: "Capture funds of an authorized payment, or of many from a file",
		Long:  captureLong,
		Example: `  bnpl payments capture 3fa85f64-5717-4562-b3fc-2c963f66afa6 --amount 500.00
  bnpl payments capture 3fa85f64-5717-4562-b3fc-2c963f66afa6 --full
  bnpl payments capture 3fa85f64-5717-4562-b3fc-2c963f66afa6 --amount 100 --reference-id ORDER-1001-C1 --tax-amount 4.76
  bnpl payments capture 3fa85f64-5717-4562-b3fc-2c963f66afa6 --amount 10 --dry-run
  bnpl payments capture --input testdata/captures.csv --report captures-report.csv`,
		Args:              moveArgs,
		ValidArgsFunction: recent.CompleteMovePaymentIDs(f.Getenv, api.StatusAuthorized),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.bind(f)
			id, err := paymentIDArg(cmd, args, &opts.Bulk)
			if err != nil {
				return err
			}
			opts.ID = id
			if err := opts.checkFlags(cmd); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return captureRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Amount, "amount", "", "amount to capture, including tax and shipping, excluding discounts")
	fl.BoolVar(&opts.Full, "full", false, "capture whatever is left to capture")
	fl.StringVar(&opts.ReferenceID, "reference-id", "", "idempotency key; default a new UUID, printed on stderr")
	fl.StringVar(&opts.TaxAmount, "tax-amount", "", "tax included in the capture")
	fl.StringVar(&opts.ShippingAmount, "shipping-amount", "", "shipping included in the capture")
	fl.StringVar(&opts.DiscountAmount, "discount-amount", "", "discount of the capture, zero or more")
	fl.StringVar(&opts.ItemsFile, "items-file", "", "JSON array of the items captured (- for stdin)")
	addBulkFlags(cmd, &opts.Bulk)
	return cmd
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

// resolveAmount settles the amount from the flags and the payment as read,
// and refuses what the service would refuse.
func (o *CaptureOptions) resolveAmount(p *api.Payment, req *api.CaptureRequest) error {
	cur := p.Currency
	// A capture already made under the given reference_id is a re-run of
	// it: it goes out unchanged, with its recorded amount for --full, and
	// the client reports it made instead of refusing it as too much. With
	// other content it is refused once the request is complete
	// (api.CheckCaptureReference).
	if prior := p.CaptureByReference(o.ReferenceID); o.ReferenceID != "" && prior != nil {
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
	if err := statusRefusal(p, "capture"); err != nil {
		return err
	}
	if err := o.expiredRefusal(p, "capture"); err != nil {
		return err
	}
	if p.Status == api.StatusClosed {
		return cmdutil.Refuse("nothing more can be captured; refunds still work (`bnpl payments refund`)",
			"payment %s is already closed: captured %s of %s", p.ID, amountText(p.Captured(), cur), amountText(p.Amount, cur))
	}
	if p.Status != api.StatusAuthorized {
		return cmdutil.Refuse("only AUTHORIZED payments can be captured", "cannot capture payment %s: it is %s", p.ID, p.Status)
	}
	capturable := p.Capturable()
	if o.Full {
		if !capturable.IsPositive() {
			return cmdutil.Refuse("close the payment instead: `bnpl payments close "+p.ID+"`",
				"nothing is left to capture on payment %s", p.ID)
		}
		req.Amount = capturable
		return nil
	}
	amount, err := parseAmountFlag("amount", o.Amount, cur, true)
	if err != nil {
		return err
	}
	if amount.GreaterThan(capturable) {
		return cmdutil.Refuse(fmt.Sprintf("capture at most %s, or use --full", money.Display(capturable, cur)),
			"cannot capture %s on payment %s: only %s is left to capture", amountText(amount, cur), p.ID, amountText(capturable, cur))
	}
	req.Amount = amount
	return nil
}
