package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/recent"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// MoveDeps are what capture, refund and close depend on, as functions so
// that tests can stub any of them.
type MoveDeps struct {
	IO        *output.IOStreams
	Client    func() (*api.Client, error)
	Printer   func() (*output.Printer, error)
	Target    func() (*config.Target, error)
	Confirmer func(live bool) cmdutil.Confirmer
	Notice    func(format string, args ...any)
	// Warn writes what a person must know whatever --quiet says: a
	// "warning:" line, or under -o json a JSON object, on stderr.
	Warn func(msg, hint string)
	// NewReferenceID makes the idempotency key of a move given none.
	NewReferenceID func() string
	DryRun         bool
	Quiet          bool
	// Seen remembers moved payments for shell completion; nil skips.
	Seen func(...recent.Entry)
	// Now is the clock the local checks use (an expired authorization).
	Now func() time.Time
	// StateDir is bnpl's state directory, where bulk runs keep the ledger
	// of moves every run on the machine shares; "" keeps a private one.
	StateDir string
	// Lookup finds the payment of an order:REF argument.
	Lookup *cmdutil.OrderLookup
	// Ledger is the ledger of moves a bulk run shares, given --ledger
	// (see config.Ledger); "" is the state directory's.
	Ledger func(flag string) (url, source string)
}

func newMoveDeps(f *cmdutil.Factory) MoveDeps {
	return MoveDeps{
		IO:             f.IO,
		Client:         f.Client,
		Printer:        f.Printer,
		Target:         f.Target,
		Confirmer:      f.Confirmer,
		Notice:         f.Noticef,
		Warn:           func(msg, hint string) { output.PrintWarning(f.IO, msg, hint) },
		NewReferenceID: uuid.NewString,
		Seen:           recent.Recorder(f.Getenv),
		Now:            time.Now,
		StateDir:       config.StateDir(f.Getenv),
		Lookup:         f.OrderLookup(),
		Ledger:         cmdutil.LedgerOf(f),
	}
}

// bind reads the global flags that are only known once the command runs.
func (d *MoveDeps) bind(f *cmdutil.Factory) {
	d.DryRun = f.Global.DryRun
	d.Quiet = f.Global.Quiet
}

// moveArgs accepts one payment id, or none with --input; which of the
// two applies is checked once the flags are parsed.
var moveArgs = cmdutil.AtMostOneArg("one payment id")

// paymentIDArg checks the argument against --input.
func paymentIDArg(cmd *cobra.Command, args []string, b *BulkOptions) (string, error) {
	if b.FromFile != "" {
		if len(args) > 0 {
			return "", cmdutil.Usagef("a payment id and --input exclude each other: the file names the payments")
		}
		return "", nil
	}
	if err := b.checkUnused(cmd); err != nil {
		return "", err
	}
	if len(args) == 0 {
		return "", cmdutil.Usagef("%s needs a payment id, or --input", cmd.CommandPath())
	}
	if err := cmdutil.CheckPaymentArg(args[0]); err != nil {
		return "", err
	}
	return args[0], nil
}

// refuseSingleFlags stops flags of a single move from being given with
// --input, whose columns carry those values per row.
func refuseSingleFlags(cmd *cobra.Command, names ...string) error {
	for _, n := range names {
		if fl := cmd.Flags().Lookup(n); fl != nil && fl.Changed {
			return cmdutil.UsageHint("put the value in the file's "+columnFor(n)+" column instead",
				"--%s does not apply with --input", n)
		}
	}
	return nil
}

func columnFor(flag string) string {
	switch flag {
	case "full":
		return "amount (full)"
	case "items-file":
		return "(none: bulk rows carry no items)"
	}
	return map[string]string{
		"amount": "amount", "reference-id": "reference_id", "tax-amount": "tax_amount",
		"shipping-amount": "shipping_amount", "discount-amount": "discount_amount", "reason": "reason",
	}[flag]
}

// amountChoice checks that exactly one of --amount and --full was given.
func amountChoice(amount string, full bool) error {
	switch {
	case amount != "" && full:
		return cmdutil.Usagef("--amount and --full exclude each other")
	case amount == "" && !full:
		return cmdutil.UsageHint("--full moves whatever is left; `bnpl payments get ID` shows the totals",
			"give --amount or --full")
	}
	return nil
}

// amountsSyntax checks the money flags given (name, value) for what holds
// in every currency, before anything is read: a malformed amount (NaN,
// 1e3) is a usage error (exit 2) whether or not the service answers. The
// currency's own places are checked once the payment is read.
func amountsSyntax(flags ...[2]string) error {
	for _, f := range flags {
		if f[1] == "" {
			continue
		}
		if _, err := parseAmountFlag(f[0], f[1], "", f[0] == "amount"); err != nil {
			return err
		}
	}
	return nil
}

// moveSetup is what a single capture, refund or close needs before it
// reads the payment: the printer, the target, its confirmer, and the client.
// In live mode with nobody at a terminal it refuses before anything is
// built that could send; verb says what would be done ("capture on").
// An order:REF in *id is resolved to the payment's id, in place.
type moveSetup struct {
	printer   *output.Printer
	target    *config.Target
	confirmer cmdutil.Confirmer
	client    *api.Client
}

func (d *MoveDeps) setup(ctx context.Context, verb string, id *string) (*moveSetup, error) {
	printer, err := d.Printer()
	if err != nil {
		return nil, err
	}
	target, err := d.Target()
	if err != nil {
		return nil, err
	}
	confirmer := d.Confirmer(target.Live)
	// A dry run sends no move, so it asks nobody and needs no --yes.
	if d.DryRun {
		confirmer.Live = false
	}
	if err := checkLiveEarly(confirmer, fmt.Sprintf("%s payment %s of %s", verb, *id, merchantOf(target))); err != nil {
		return nil, err
	}
	client, err := d.Client()
	if err != nil {
		return nil, err
	}
	if *id, err = d.Lookup.PaymentID(ctx, client, *id); err != nil {
		return nil, err
	}
	return &moveSetup{printer: printer, target: target, confirmer: confirmer, client: client}, nil
}

// checkLiveEarly refuses a live move that nobody can confirm before
// anything, the read of the payment included, is sent.
func checkLiveEarly(c cmdutil.Confirmer, what string) error {
	if c.Live && !c.Yes && !c.Terminal {
		return c.Confirm(what)
	}
	return nil
}

// parseAmountFlag reads a money flag. With no currency only what holds
// for every currency is checked.
func parseAmountFlag(flag, value, currency string, positive bool) (decimal.Decimal, error) {
	parse := money.ParseNonNegative
	if positive {
		parse = money.ParsePositive
	}
	d, err := parse(value, currency)
	if err != nil {
		var merr *money.Error
		if errors.As(err, &merr) {
			return d, cmdutil.Refuse(placesHint(currency), "invalid --%s %q: %s", flag, value, merr.Reason)
		}
		return d, err
	}
	if currency == "" && -d.Exponent() > 3 {
		return d, cmdutil.Refuse(placesHint(""), "invalid --%s %q: no currency allows more than 3 decimal places", flag, value)
	}
	return d, nil
}

func placesHint(currency string) string {
	if currency != "" {
		return fmt.Sprintf("amounts in %s take at most %d decimal places, such as %s", currency,
			money.Places(currency), money.Format(decimal.NewFromInt(100), currency))
	}
	return "amounts are plain decimals such as 100.00: 2 places for AED and SAR, 3 for KWD"
}

// optionalAmount parses an optional money flag into a pointer.
func optionalAmount(flag, value, currency string) (*decimal.Decimal, error) {
	if value == "" {
		return nil, nil
	}
	d, err := parseAmountFlag(flag, value, currency, false)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// loadItemsFile reads an --items-file before anything else happens (no
// read of the payment, no prompt), so that a missing, oversized or
// non-regular file, or one that is not a JSON array, is refused at once
// with exit 2. The items are checked against the currency once it is known
// (itemsOf).
func loadItemsFile(path string, stdin io.Reader) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	b, err := userfile.Read("--items-file", path, stdin, userfile.MaxRequestBody)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return nil, cmdutil.Refuse("the file holds a JSON array of items with title, quantity, unit_price and category",
			"cannot read --items-file %s: %v; nothing was sent", path, err)
	}
	return b, nil
}

// itemsOf checks the items loadItemsFile read against the payment's
// currency; nil b gives no items.
func itemsOf(b []byte, path, currency string) ([]api.OrderItem, error) {
	if b == nil {
		return nil, nil
	}
	if v := api.ValidateOrderItems(b, currency); v != nil {
		return nil, v
	}
	var items []api.OrderItem
	if err := json.Unmarshal(b, &items); err != nil {
		return nil, cmdutil.Refuse("the file holds a JSON array of items with title, quantity, unit_price and category",
			"cannot read --items-file %s: %v", path, err)
	}
	return items, nil
}

// referenceFor returns the move's idempotency key, making and announcing
// one when none was given. It is announced before anything is sent, so
// that a person whose terminal died mid-request still has it.
func (d *MoveDeps) referenceFor(given string) string {
	if given != "" {
		return given
	}
	ref := d.NewReferenceID()
	if !d.DryRun {
		d.Notice("reference_id: %s (re-run with --reference-id %s to retry safely)", ref, ref)
	}
	return ref
}

// printMoved prints the payment after a move, and says so when the move
// turned out to have been made by an earlier attempt.
//
// madeBefore is true when the payment read before sending already showed a
// move with the given reference_id: the service answers such a repeat as
// if it were new, but nothing moved. res.MadeBefore says the same of a
// move the service's answer shows made before this command sent it (by a
// concurrent run with the same reference_id).
func (d *MoveDeps) printMoved(printer *output.Printer, kind string, res *api.MoveResult, madeBefore bool) error {
	if res.Reconciled || res.MadeBefore || madeBefore {
		if res.ReferenceID != "" {
			d.Notice("the %s with reference_id %s was found already made: nothing was moved twice", kind, res.ReferenceID)
		} else {
			d.Notice("the payment was found already closed by an earlier attempt")
		}
	}
	if err := printer.Object(res.Payment.Raw(), Detail(res.Payment)); err != nil {
		return err
	}
	if d.Seen != nil {
		d.Seen(recentEntry(res.Payment))
	}
	return nil
}

func merchantOf(t *config.Target) string { return t.Merchant() }

// amountText is an amount as every prompt and message shows it.
func amountText(d decimal.Decimal, currency string) string {
	return money.Display(d, currency)
}

// statusRefusal explains locally why a payment's status does not allow a
// move; the same refusal the service would give, without sending it.
func statusRefusal(p *api.Payment, verb string) error {
	id := p.ID
	switch p.Status {
	case api.StatusCreated:
		return cmdutil.Refuse(fmt.Sprintf("wait for the customer with `bnpl payments wait %s --status AUTHORIZED`", id),
			"cannot %s payment %s: it is CREATED, the customer has not completed checkout yet", verb, id)
	case api.StatusRejected, api.StatusExpired:
		return cmdutil.Refuse("no money was taken on this payment; there is nothing to "+verb,
			"cannot %s payment %s: it is %s", verb, id, p.Status)
	}
	return nil
}

// expiredRefusal refuses a move on an AUTHORIZED payment whose
// authorization has expired: the service would refuse it.
func (d *MoveDeps) expiredRefusal(p *api.Payment, verb string) error {
	if !p.AuthorizationExpired(d.now()) {
		return nil
	}
	return cmdutil.Refuse("nothing was sent; no money was taken on this payment",
		"cannot %s payment %s: the authorization expired at %s; nothing can be captured; treat the payment as expired",
		verb, p.ID, d.IO.FormatTime(*p.ExpiresAt))
}

func (d *MoveDeps) now() time.Time {
	if d.Now == nil {
		return time.Now()
	}
	return d.Now()
}

// amountPart is an optional amount flag of a capture, as parsed.
type amountPart struct {
	flag string
	d    *decimal.Decimal
}

// checkPartsOfAmount refuses a capture whose tax, shipping or discount
// amount exceeds the capture amount: each is a part of it. The rule is
// api.ExcessCapturePart, which bulk rows go through too.
func checkPartsOfAmount(amount decimal.Decimal, currency string, parts ...amountPart) error {
	var tax, shipping, discount *decimal.Decimal
	for _, p := range parts {
		switch p.flag {
		case "tax-amount":
			tax = p.d
		case "shipping-amount":
			shipping = p.d
		case "discount-amount":
			discount = p.d
		}
	}
	field, part, found := api.ExcessCapturePart(amount, tax, shipping, discount)
	if !found {
		return nil
	}
	return cmdutil.Refuse("tax, shipping and discount are parts of the capture: each is at most its amount",
		"--%s %s is more than the capture amount %s; nothing was sent", strings.ReplaceAll(field, "_", "-"), money.Format(part, currency), amountText(amount, currency))
}

// ledger is the URL of the ledger a bulk run shares, given --ledger; ""
// is the state directory's.
func (d *MoveDeps) ledger(flag string) string {
	if d.Ledger == nil {
		return flag
	}
	url, _ := d.Ledger(flag)
	return url
}

// orderDryRunHelp is what the help of capture, refund and close says of
// order:REF and of a dry run of one.
const orderDryRunHelp = `

order:REF names the payment of the merchant's order number REF: the payments are
searched for it first (reads only, shown only with --debug), and an order number
two payments carry is refused (exit 2), both listed, in a dry run as in the real
run. A dry run of order:REF says on stderr which payment the order is and what
the move would do, then prints on stdout the one request the real run would
send: method, URL, headers (the key masked) and body.`
