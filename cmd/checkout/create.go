package checkout

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/recent"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// CreateOptions are the inputs of `checkout create`.
type CreateOptions struct {
	File string
	// Example sends the built-in example request (example.go) in place of
	// a file.
	Example bool
	// fileFlag is how the file was named on the command line (--input, or
	// its older name --file), for messages.
	fileFlag string

	Amount          string
	Currency        string
	ReferenceID     string
	Description     string
	BuyerName       string
	BuyerEmail      string
	BuyerPhone      string
	BuyerDOB        string
	ShippingCity    string
	ShippingAddress string
	ShippingZip     string
	Items           []string
	Lang            string
	SuccessURL      string
	CancelURL       string
	FailureURL      string
	Meta            []string
	Attachment      string
	AttachmentType  string
	MerchantCode    string

	Stdin   io.Reader
	Now     func() time.Time
	Notice  func(format string, args ...any)
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	// Currencies are those the merchant may sell in, nil when unknown.
	Currencies func(t *config.Target, merchantCode string) []string
	Seen       func(...recent.Entry)
	// Served, when set, tells whether a sandbox answers at a base URL
	// (loopback only), so that the embedded default can say whether its
	// checkout URL opens.
	Served func(ctx context.Context, baseURL string) bool
}

// createLong is the help of this command.
const createLong = `Create a checkout session, and with it a payment, from a JSON request (--input, or
- for stdin), from flags for the common fields, or both: flags are laid over the
file and win. --item replaces the file's items; --meta adds to its meta.
--example sends the example request built into bnpl (testdata/checkout.json of
the source, also in the release archives and packages), in the merchant's
currency and as the merchant in use: the first checkout needs nothing else.

What a person giving flags only cannot be expected to know is filled in, with a
notice on stderr: lang "en", merchant_code from the profile, the currency when
the merchant has only one (sa-sandbox, kw-sandbox, ae-sandbox, or region sa), and
buyer_history {registered_since: now, loyalty_level: 0}.

Before anything is sent the request is checked against what the service
requires: required fields, amounts (positive, with at most 2 decimals for AED and
SAR and 3 for KWD), the currency of the merchant's country, quantities of 1 or
more, unit prices of 0 or more, dates (YYYY-MM-DD) and times (RFC 3339), absolute
http(s) URLs, lang en or ar, email addresses and the attachment's media type.
Every problem is listed at once with its JSON path, and the command exits 2.

The session's id, its payment's id and status, and the checkout URL are printed.
A session that pre-scoring rejected is not an error: its status is "rejected",
the reason is printed, and the command exits 0. -o json prints the session as the
service sent it. A creation is never retried once the request may have arrived,
since a second one would create a second payment.`

func newCreateCmd(f *cmdutil.Factory, run func(context.Context, *CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{
		Stdin:      f.IO.In,
		Now:        time.Now,
		Notice:     f.Noticef,
		Target:     f.Target,
		Client:     f.Client,
		Printer:    f.Printer,
		Currencies: MerchantCurrencies,
		Seen:       recent.Recorder(f.Getenv),
		Served:     cmdutil.ProbeSandbox,
	}
	cmd := &cobra.Command{
		Use:   "create [--input F | --example | flags]",
		Short: "Create a checkout session and its payment",
		Long:  createLong,
		Example: `  bnpl checkout create --example
  bnpl checkout create --input testdata/checkout.json
  bnpl checkout create --input testdata/checkout.json --order ORDER-1002 --amount 99.50
  bnpl checkout create --amount 120.00 --currency AED --order ORDER-1003 \
      --buyer-name "Layla Haddad" --buyer-email otp.success@tabby.ai --buyer-phone +971500000001 \
      --shipping-city Dubai --shipping-address "Marina Heights 1204" \
      --item "Trail running shoes:1:120.00:Footwear"
  cat testdata/checkout.json | bnpl checkout create --input - -o json --jq .payment.id`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.fileFlag = "--input"
			if cmd.Flags().Changed("file") {
				opts.fileFlag = "--file"
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return createRun(cmd.Context(), opts)
		},
	}
	addCreateFlags(cmd, f, opts)
	return cmd
}

// addCreateFlags declares the request's sources and the flags laid over it.
func addCreateFlags(cmd *cobra.Command, f *cmdutil.Factory, opts *CreateOptions) {
	fl := cmd.Flags()
	fl.StringVar(&opts.File, "input", "", "JSON request body to send (- for stdin)")
	fl.BoolVar(&opts.Example, "example", false, "send the built-in example request (a 1250.00 AED order, or the KWD or SAR one for such a merchant)")
	// --file and -f were the names of --input: kept, out of sight.
	fl.StringVarP(&opts.File, "file", "f", "", "JSON request body to send (- for stdin); the older name of --input")
	_ = fl.MarkHidden("file")
	f.DeprecateShort(fl, "file", "use --input (-f is --field of bnpl api)")
	fl.StringVar(&opts.Amount, "amount", "", "payment amount, such as 120.00")
	fl.StringVar(&opts.Currency, "currency", "", "AED, KWD or SAR: the currency of the merchant's country")
	fl.StringVar(&opts.ReferenceID, "order", "", "the merchant's order number")
	fl.StringVar(&opts.ReferenceID, "reference-id", "", "the merchant's order number")
	f.Deprecate(fl, "reference-id", "use --order (--reference-id is the idempotency key of capture and refund)")
	fl.StringVar(&opts.Description, "description", "", "payment description")
	fl.StringVar(&opts.BuyerName, "buyer-name", "", "buyer's full name")
	fl.StringVar(&opts.BuyerEmail, "buyer-email", "", "buyer's email")
	fl.StringVar(&opts.BuyerPhone, "buyer-phone", "", "buyer's phone, such as +971500000001")
	fl.StringVar(&opts.BuyerDOB, "buyer-dob", "", "buyer's date of birth, YYYY-MM-DD")
	fl.StringVar(&opts.ShippingCity, "shipping-city", "", "shipping city")
	fl.StringVar(&opts.ShippingAddress, "shipping-address", "", "shipping address: building, apartment")
	fl.StringVar(&opts.ShippingZip, "shipping-zip", "", "shipping postal code")
	fl.StringArrayVar(&opts.Items, "item", nil, "an order item title:quantity:unit_price:category (repeat for more)")
	fl.StringVar(&opts.Lang, "lang", "", "language of the checkout: en or ar (default en)")
	fl.StringVar(&opts.SuccessURL, "success-url", "", "where the customer goes after a successful checkout")
	fl.StringVar(&opts.CancelURL, "cancel-url", "", "where the customer goes after cancelling")
	fl.StringVar(&opts.FailureURL, "failure-url", "", "where the customer goes after a failed checkout")
	fl.StringArrayVar(&opts.Meta, "meta", nil, "a meta entry key=value (repeat for more)")
	fl.StringVar(&opts.Attachment, "attachment", "", "file holding JSON extra data, sent serialized as the attachment body")
	fl.StringVar(&opts.AttachmentType, "attachment-type", "", "the attachment's media type, application/vnd.VENDOR.v1+json")
	fl.StringVar(&opts.MerchantCode, "merchant-code", "", "merchant (branch) code; default the profile's")
	cmd.MarkFlagsMutuallyExclusive("example", "input")
	cmd.MarkFlagsMutuallyExclusive("example", "file")
}

func createRun(ctx context.Context, o *CreateOptions) error {
	printer, err := o.Printer()
	if err != nil {
		return err
	}
	target, err := o.Target()
	if err != nil {
		return err
	}
	body, err := o.requestBody(target)
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	s, err := client.CreateCheckout(ctx, json.RawMessage(body))
	if err != nil {
		return embeddedMerchantHint(err, target, body)
	}
	if err := printer.Object(s.Raw(), SessionDetail(s)); err != nil {
		return err
	}
	if o.Seen != nil && s.Payment.ID != "" {
		note := strings.TrimSpace(s.Payment.Status + " " + money.Display(s.Payment.Amount, s.Payment.Currency))
		o.Seen(recent.Entry{ID: s.Payment.ID, Note: note}, recent.Entry{ID: s.ID, Note: note, Kind: recent.KindSession})
	}
	if s.Status != api.SessionRejected && target.Embedded {
		live := ""
		if target.Live {
			// The payment is the live mode's: the verb must say so too.
			live = " --live"
		}
		o.Notice("play the customer with `bnpl sandbox approve %s%s`, or open the checkout URL", s.Payment.ID, live)
		if u := s.WebURL(); u != "" && o.Served != nil {
			if o.Served(ctx, originOf(u)) {
				o.Notice("the checkout URL is live: a sandbox serves it at %s (`bnpl checkout open %s` opens it)", originOf(u), s.ID)
			} else {
				o.Notice("the checkout URL is not live yet: nothing serves %s; run `bnpl sandbox serve` to serve this state there", originOf(u))
			}
		}
	}
	return nil
}

// originOf is scheme://host:port of a URL.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// MerchantCurrencies are the currencies a merchant may sell in: exactly
// its own for the sandbox's built-in merchants, those of the target's
// region when a profile, the environment or a regional base URL names it,
// nil when nothing is known.
func MerchantCurrencies(t *config.Target, merchantCode string) []string {
	for _, m := range config.EmbeddedMerchants() {
		if m.Code == merchantCode {
			return []string{m.Currency}
		}
	}
	// A region nobody chose says nothing about the merchant's country:
	// leave the country rule to the service rather than refuse wrongly.
	if t.Sources["region"] == config.SourceDefault {
		return nil
	}
	return config.RegionCurrencies(t.Region)
}

// requestBody builds the request from the file and the flags, fills the
// defaults, and checks it; every problem, of the flags and of the body, is
// returned at once.
func (o *CreateOptions) requestBody(target *config.Target) ([]byte, error) {
	problems := &api.ValidationError{}
	root := map[string]any{}
	if o.File != "" || o.Example {
		raw, err := o.readFile(target)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // numbers go out exactly as written
		var doc any
		if err := dec.Decode(&doc); err != nil {
			problems.Add("$", "%s is not JSON: %v", o.fileName(), err)
			return nil, &invalidRequest{problems}
		}
		// One document and nothing after it: a second document or stray
		// text is a file made by mistake, not something to send half of.
		if _, err := dec.Token(); err != io.EOF {
			problems.Add("$", "%s holds more than one JSON document, or text after the first (at byte %d)", o.fileName(), dec.InputOffset())
			return nil, &invalidRequest{problems}
		}
		m, ok := doc.(map[string]any)
		if !ok {
			problems.Add("$", "%s must hold a JSON object", o.fileName())
			return nil, &invalidRequest{problems}
		}
		// A name given twice is lost in the map: found in the file's own
		// bytes, before anything is decoded away.
		if v := api.ValidateNames(raw); v != nil {
			problems.Problems = append(problems.Problems, v.Problems...)
		}
		root = m
		if o.Example && target.MerchantCode != "" {
			root["merchant_code"] = target.MerchantCode
		}
	}

	o.applyFlags(root, problems)
	filled := o.fillDefaults(root, target)
	body, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("encoding the checkout request: %w", err)
	}
	merchant, _ := root["merchant_code"].(string)
	if v := api.ValidateCheckout(body, o.Currencies(target, merchant)); v != nil {
		problems.Problems = append(problems.Problems, v.Problems...)
	}
	if len(problems.Problems) > 0 {
		return nil, &invalidRequest{problems}
	}
	if len(filled) > 0 {
		o.Notice("filled in: %s", strings.Join(filled, ", "))
	}
	return body, nil
}

func (o *CreateOptions) fileName() string {
	switch {
	case o.Example:
		return "the example"
	case o.File == "-":
		return "stdin"
	}
	return o.File
}

func (o *CreateOptions) readFile(target *config.Target) ([]byte, error) {
	if o.Example {
		return o.exampleRequest(target)
	}
	return userfile.Read(cmp.Or(o.fileFlag, "--input"), o.File, o.Stdin, userfile.MaxRequestBody)
}

// applyFlags lays the flags given over the document.
func (o *CreateOptions) applyFlags(root map[string]any, problems *api.ValidationError) {
	set := func(value string, path ...string) {
		if value != "" {
			setPath(root, value, path...)
		}
	}
	set(o.Amount, "payment", "amount")
	set(o.Currency, "payment", "currency")
	set(o.Description, "payment", "description")
	set(o.ReferenceID, "payment", "order", "reference_id")
	set(o.BuyerName, "payment", "buyer", "name")
	set(o.BuyerEmail, "payment", "buyer", "email")
	set(o.BuyerPhone, "payment", "buyer", "phone")
	set(o.BuyerDOB, "payment", "buyer", "dob")
	set(o.ShippingCity, "payment", "shipping_address", "city")
	set(o.ShippingAddress, "payment", "shipping_address", "address")
	set(o.ShippingZip, "payment", "shipping_address", "zip")
	set(o.Lang, "lang")
	set(o.SuccessURL, "merchant_urls", "success")
	set(o.CancelURL, "merchant_urls", "cancel")
	set(o.FailureURL, "merchant_urls", "failure")
	set(o.MerchantCode, "merchant_code")

	if len(o.Items) > 0 {
		items := make([]any, 0, len(o.Items))
		for _, spec := range o.Items {
			if item, ok := parseItem(spec, problems); ok {
				items = append(items, item)
			}
		}
		setPath(root, items, "payment", "order", "items")
	}
	for _, kv := range o.Meta {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(key) == "" {
			problems.Add("--meta", "%q is not key=value", kv)
			continue
		}
		setPath(root, value, "payment", "meta", strings.TrimSpace(key))
	}
	if o.Attachment != "" {
		raw, err := userfile.Read("", o.Attachment, o.Stdin, userfile.MaxRequestBody)
		var compact bytes.Buffer
		switch {
		case err != nil:
			problems.Add("--attachment", "%v", err)
		case json.Compact(&compact, raw) != nil:
			problems.Add("--attachment", "%s must hold JSON", o.Attachment)
		default:
			setPath(root, compact.String(), "payment", "attachment", "body")
		}
		if o.AttachmentType == "" {
			if _, has := lookup(root, "payment", "attachment", "content_type").(string); !has {
				problems.Add("--attachment-type", "is required with --attachment: a vendor type such as application/vnd.acme.v1+json")
			}
		}
	}
	set(o.AttachmentType, "payment", "attachment", "content_type")
}

// parseItem reads title:quantity:unit_price:category. The title may hold
// colons, so the other three are taken from the right.
func parseItem(spec string, problems *api.ValidationError) (map[string]any, bool) {
	parts := strings.Split(spec, ":")
	if len(parts) < 4 {
		problems.Add("--item", "%q is not title:quantity:unit_price:category", spec)
		return nil, false
	}
	n := len(parts)
	title := strings.Join(parts[:n-3], ":")
	qty, err := strconv.Atoi(strings.TrimSpace(parts[n-3]))
	if err != nil {
		problems.Add("--item", "%q: quantity %q is not a whole number", spec, parts[n-3])
		return nil, false
	}
	return map[string]any{
		"title":      strings.TrimSpace(title),
		"quantity":   qty,
		"unit_price": strings.TrimSpace(parts[n-2]),
		"category":   strings.TrimSpace(parts[n-1]),
	}, true
}

// fillDefaults supplies what the service requires and a person giving
// flags cannot be expected to know; it returns what it filled, for the
// notice.
func (o *CreateOptions) fillDefaults(root map[string]any, target *config.Target) []string {
	var filled []string
	if lookup(root, "lang") == nil {
		root["lang"] = "en"
		filled = append(filled, "lang=en")
	}
	if lookup(root, "merchant_code") == nil && target.MerchantCode != "" {
		root["merchant_code"] = target.MerchantCode
		filled = append(filled, "merchant_code="+target.MerchantCode)
	}
	if lookup(root, "payment", "currency") == nil {
		merchant, _ := root["merchant_code"].(string)
		if cs := o.Currencies(target, merchant); len(cs) == 1 {
			setPath(root, cs[0], "payment", "currency")
			filled = append(filled, "currency="+cs[0])
		}
	}
	if lookup(root, "payment", "buyer_history") == nil {
		setPath(root, map[string]any{
			"registered_since": o.Now().UTC().Format(time.RFC3339),
			"loyalty_level":    0,
		}, "payment", "buyer_history")
		filled = append(filled, "buyer_history (registered_since=now, loyalty_level=0)")
	}
	// Most of the UAE has no postal code: an address given without one
	// carries an empty zip, as real orders do.
	if addr, ok := lookup(root, "payment", "shipping_address").(map[string]any); ok {
		if _, has := addr["zip"]; !has {
			addr["zip"] = ""
			filled = append(filled, `zip=""`)
		}
	}
	return filled
}

// setPath puts value at path, making (or replacing, since flags win) the
// objects on the way.
func setPath(root map[string]any, value any, path ...string) {
	node := root
	for _, key := range path[:len(path)-1] {
		next, ok := node[key].(map[string]any)
		if !ok {
			next = map[string]any{}
			node[key] = next
		}
		node = next
	}
	node[path[len(path)-1]] = value
}

// lookup finds the value at path, nil when absent or null.
func lookup(root map[string]any, path ...string) any {
	var cur any = root
	for _, key := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[key]
	}
	return cur
}

// invalidRequest lists a request's problems under one heading, one per
// line, so a long list reads as a list.
type invalidRequest struct{ v *api.ValidationError }

func (e *invalidRequest) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the checkout request has %d %s; nothing was sent:", len(e.v.Problems), plural(len(e.v.Problems), "problem", "problems"))
	for _, p := range e.v.Problems {
		b.WriteString("\n  " + p.Path + ": " + p.Message)
	}
	return b.String()
}

func (e *invalidRequest) Unwrap() error { return e.v }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// embeddedMerchantHint names the one variable to set when a checkout for
// another built-in merchant (the kw and sa examples) is sent with the
// embedded sandbox's default key: BNPL_MERCHANT_CODE picks that merchant
// and its key.
func embeddedMerchantHint(err error, target *config.Target, body []byte) error {
	var ae *api.APIError
	if !target.Embedded || !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized {
		return err
	}
	var req struct {
		MerchantCode string `json:"merchant_code"`
	}
	if json.Unmarshal(body, &req) != nil || req.MerchantCode == "" || req.MerchantCode == target.MerchantCode {
		return err
	}
	return cmdutil.WithHint(err, fmt.Sprintf("the file is for merchant %s and the embedded sandbox answers as %s: run it with BNPL_MERCHANT_CODE=%s, which picks that merchant's built-in key",
		req.MerchantCode, target.MerchantCode, req.MerchantCode))
}
