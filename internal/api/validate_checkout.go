package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/money"
)

// The checkout rules work on the decoded JSON tree rather than on
// CheckoutRequest: a value of the wrong type must become one problem with
// its path, not a decoding error that hides every other problem. The rules
// are also strict enough that anything they accept decodes into
// CheckoutRequest, so the sandbox and the client read it the same way.

var (
	emailShape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$`) })
	// The service names attachments with a versioned vendor media type.
	attachmentContentType = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^application/vnd\.[a-z0-9][a-z0-9.+_-]*\.v1\+json$`)
	})
)

// CheckoutLangs are the languages the hosted checkout speaks.
var CheckoutLangs = []string{"en", "ar"}

// Payment fields that the service assigns; a creation request has no say
// in them.
var serviceAssigned = []string{"id", "status", "created_at", "expires_at", "is_test", "captures", "refunds"}

// ValidateCheckout checks a POST /api/v2/checkout body against what the
// interface requires, and returns every problem found, each with its JSON
// path, or nil when the body may be sent. knownCurrencies narrows the
// currencies the merchant may use (its country's); nil allows any the
// service settles in.
func ValidateCheckout(body []byte, knownCurrencies []string) *ValidationError {
	v := &ValidationError{}
	root, ok := decodeTree(body)
	if !ok {
		v.Add("$", "must be a single JSON object")
		return v
	}
	top, ok := root.(map[string]any)
	if !ok {
		v.Add("$", "must be a JSON object, got %s", kindOf(root))
		return v
	}
	r := &checkoutRules{v: v}
	for _, path := range duplicateKeys(body) {
		r.add(path, "appears twice in its object: keep one")
	}

	if lang, ok := r.str(top, "lang", "$", true); ok && lang != "" && !oneOf(lang, CheckoutLangs) {
		r.add("$.lang", "must be one of %s, got %q", strings.Join(CheckoutLangs, ", "), lang)
	}
	r.str(top, "merchant_code", "$", true)
	if urls, ok := r.obj(top, "merchant_urls", "$", false); ok {
		for _, name := range []string{"success", "cancel", "failure"} {
			r.redirectURL(urls, name, "$.merchant_urls")
		}
	}
	if tok, present := top["token"]; present && tok != nil {
		if _, ok := tok.(string); !ok {
			r.add("$.token", "must be a string or null, got %s", kindOf(tok))
		}
	}

	p, ok := r.obj(top, "payment", "$", true)
	if !ok {
		return v.result()
	}
	r.payment(p, knownCurrencies)
	return v.result()
}

// ValidateOrderItems checks a JSON array of order items, as a capture or a
// refund sends them, with the places of currency ("" when not known yet).
func ValidateOrderItems(body []byte, currency string) *ValidationError {
	v := &ValidationError{}
	root, ok := decodeTree(body)
	if !ok {
		v.Add("$.items", "must be a single JSON array")
		return v
	}
	items, ok := root.([]any)
	if !ok {
		v.Add("$.items", "must be a JSON array of items, got %s", kindOf(root))
		return v
	}
	r := &checkoutRules{v: v, currency: strings.ToUpper(currency), currencyOK: money.Known(currency)}
	for _, path := range duplicateKeys(body) {
		r.add("$.items"+strings.TrimPrefix(path, "$"), "appears twice in its object: keep one")
	}
	for i, it := range items {
		r.item(it, fmt.Sprintf("$.items[%d]", i))
	}
	return v.result()
}

func (v *ValidationError) result() *ValidationError {
	if len(v.Problems) == 0 {
		return nil
	}
	return v
}

// decodeTree reads exactly one JSON value, numbers kept as written.
func decodeTree(body []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return root, true
}

type checkoutRules struct {
	v *ValidationError
	// currency of the payment, for the places of every amount;
	// currencyOK is false when it is missing or unknown, and places are
	// then not checked (the currency's own problem says enough).
	currency   string
	currencyOK bool
}

func (r *checkoutRules) add(path, format string, args ...any) { r.v.Add(path, format, args...) }

func (r *checkoutRules) payment(p map[string]any, knownCurrencies []string) {
	const at = "$.payment"
	for _, k := range serviceAssigned {
		if _, present := p[k]; present {
			r.add(at+"."+k, "is assigned by the service; leave it out of the request")
		}
	}

	if cur, ok := r.str(p, "currency", at, true); ok && cur != "" {
		r.checkCurrency(cur, knownCurrencies)
	}
	r.amount(p, "amount", at, true, true)
	r.str(p, "description", at, false)

	if b, ok := r.obj(p, "buyer", at, true); ok {
		r.buyer(b, at+".buyer", true)
	}
	if a, ok := r.obj(p, "shipping_address", at, true); ok {
		r.address(a, at+".shipping_address", true)
	}
	if o, ok := r.obj(p, "order", at, true); ok {
		r.order(o, at+".order")
	}
	if h, ok := r.obj(p, "buyer_history", at, true); ok {
		r.buyerHistory(h, at+".buyer_history")
	}
	if hist, ok := r.arr(p, "order_history", at); ok {
		for i, e := range hist {
			r.historyEntry(e, fmt.Sprintf("%s.order_history[%d]", at, i))
		}
	}
	r.obj(p, "meta", at, false)
	if a, ok := r.obj(p, "attachment", at, false); ok {
		r.attachment(a, at+".attachment")
	}
}

func (r *checkoutRules) checkCurrency(cur string, known []string) {
	const path = "$.payment.currency"
	upper := strings.ToUpper(cur)
	if !money.Known(upper) {
		r.add(path, "%q is not a currency the service settles in (%s)", cur, strings.Join(money.Currencies(), ", "))
		return
	}
	if cur != upper {
		r.add(path, "write the currency in capitals: %q, not %q", upper, cur)
		return
	}
	r.currency, r.currencyOK = upper, true
	if len(known) > 0 && !oneOf(upper, known) {
		quoted := make([]string, len(known))
		for i, k := range known {
			quoted[i] = "'" + k + "'"
		}
		if len(known) == 1 {
			r.add(path, "only %s is supported, but got '%s'", quoted[0], cur)
		} else {
			r.add(path, "only %s are supported in this region, but got '%s'", strings.Join(quoted, " or "), cur)
		}
	}
}

func (r *checkoutRules) buyer(b map[string]any, at string, strict bool) {
	r.str(b, "name", at, strict)
	if email, ok := r.str(b, "email", at, strict); ok && email != "" && !emailShape().MatchString(email) {
		r.add(at+".email", "%q is not an email address", email)
	}
	r.str(b, "phone", at, strict)
	r.date(b, "dob", at)
}

func (r *checkoutRules) address(a map[string]any, at string, strict bool) {
	for _, k := range []string{"city", "address", "zip"} {
		r.str(a, k, at, strict)
	}
}

func (r *checkoutRules) order(o map[string]any, at string) {
	r.str(o, "reference_id", at, true)
	r.timestamp(o, "updated_at", at, false)
	for _, k := range []string{"tax_amount", "shipping_amount", "discount_amount"} {
		r.amount(o, k, at, false, false)
	}
	if items, ok := r.arr(o, "items", at); ok {
		for i, it := range items {
			r.item(it, fmt.Sprintf("%s.items[%d]", at, i))
		}
	}
}

func (r *checkoutRules) item(v any, at string) {
	it, ok := v.(map[string]any)
	if !ok {
		r.add(at, "must be an object, got %s", kindOf(v))
		return
	}
	r.str(it, "title", at, true)
	if q, ok := r.integer(it, "quantity", at, true); ok && q < 1 {
		r.add(at+".quantity", "must be at least 1, got %d", q)
	}
	r.amount(it, "unit_price", at, true, false)
	r.str(it, "category", at, true)
	r.amount(it, "discount_amount", at, false, false)
	for _, k := range []string{"reference_id", "description", "gender", "color", "product_material",
		"size_type", "size", "brand", "barcode", "ppn", "seller"} {
		r.str(it, k, at, false)
	}
	r.webURL(it, "image_url", at)
	r.webURL(it, "product_url", at)
	r.boolean(it, "is_refundable", at)
	for _, k := range []string{"ordered", "captured", "shipped", "refunded"} {
		if n, ok := r.integer(it, k, at, false); ok && n < 0 {
			r.add(at+"."+k, "must not be negative, got %d", n)
		}
	}
}

func (r *checkoutRules) buyerHistory(h map[string]any, at string) {
	r.timestamp(h, "registered_since", at, true)
	if n, ok := r.integer(h, "loyalty_level", at, true); ok && n < 0 {
		r.add(at+".loyalty_level", "must not be negative, got %d", n)
	}
	if n, ok := r.integer(h, "wishlist_count", at, false); ok && n < 0 {
		r.add(at+".wishlist_count", "must not be negative, got %d", n)
	}
	for _, k := range []string{"is_social_networks_connected", "is_phone_number_verified", "is_email_verified"} {
		r.boolean(h, k, at)
	}
}

func (r *checkoutRules) historyEntry(v any, at string) {
	e, ok := v.(map[string]any)
	if !ok {
		r.add(at, "must be an object, got %s", kindOf(v))
		return
	}
	r.timestamp(e, "purchased_at", at, true)
	r.amount(e, "amount", at, true, false)
	r.str(e, "status", at, true)
	r.str(e, "payment_method", at, false)
	if b, ok := r.obj(e, "buyer", at, false); ok {
		r.buyer(b, at+".buyer", false)
	}
	if a, ok := r.obj(e, "shipping_address", at, false); ok {
		r.address(a, at+".shipping_address", false)
	}
	if items, ok := r.arr(e, "items", at); ok {
		for i, it := range items {
			r.item(it, fmt.Sprintf("%s.items[%d]", at, i))
		}
	}
}

func (r *checkoutRules) attachment(a map[string]any, at string) {
	if body, ok := r.str(a, "body", at, true); ok && body != "" && !json.Valid([]byte(body)) {
		r.add(at+".body", "must hold serialized JSON")
	}
	if ct, ok := r.str(a, "content_type", at, true); ok && ct != "" && !attachmentContentType().MatchString(ct) {
		r.add(at+".content_type", "%q is not a vendor type such as application/vnd.acme.v1+json", ct)
	}
}

// ---- typed field readers: each reports its own problem ----

// field reads m[key]; a JSON null counts as absent. A missing required
// field is reported here.
func (r *checkoutRules) field(m map[string]any, key, at string, required bool) (any, bool) {
	// Go's decoder, the service's and the sandbox's, matches field names
	// regardless of case, so "Quantity" would silently stand in for (or
	// override) "quantity" with a value these rules never saw.
	for k := range m {
		if k != key && strings.EqualFold(k, key) {
			r.add(at+"."+k, "field names are case-sensitive: write %q", key)
		}
	}
	v, present := m[key]
	if !present || v == nil {
		if required {
			r.add(at+"."+key, "is required")
		}
		return nil, false
	}
	return v, true
}

// str reads a string; ok is false when it is absent or not a string. A
// required string must not be blank either.
func (r *checkoutRules) str(m map[string]any, key, at string, required bool) (string, bool) {
	v, ok := r.field(m, key, at, required)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		r.add(at+"."+key, "must be a string, got %s", kindOf(v))
		return "", false
	}
	if required && strings.TrimSpace(s) == "" {
		r.add(at+"."+key, "is required and must not be blank")
		return "", false
	}
	return s, true
}

func (r *checkoutRules) obj(m map[string]any, key, at string, required bool) (map[string]any, bool) {
	v, ok := r.field(m, key, at, required)
	if !ok {
		return nil, false
	}
	o, ok := v.(map[string]any)
	if !ok {
		r.add(at+"."+key, "must be an object, got %s", kindOf(v))
		return nil, false
	}
	return o, true
}

func (r *checkoutRules) arr(m map[string]any, key, at string) ([]any, bool) {
	v, ok := r.field(m, key, at, false)
	if !ok {
		return nil, false
	}
	a, ok := v.([]any)
	if !ok {
		r.add(at+"."+key, "must be an array, got %s", kindOf(v))
		return nil, false
	}
	return a, true
}

func (r *checkoutRules) boolean(m map[string]any, key, at string) {
	if v, ok := r.field(m, key, at, false); ok {
		if _, ok := v.(bool); !ok {
			r.add(at+"."+key, "must be true or false, got %s", kindOf(v))
		}
	}
}

// integer reads a JSON integer that fits an int; 1.0 and 1e2 are not
// integers to the service.
func (r *checkoutRules) integer(m map[string]any, key, at string, required bool) (int, bool) {
	v, ok := r.field(m, key, at, required)
	if !ok {
		return 0, false
	}
	num, ok := v.(json.Number)
	if !ok {
		r.add(at+"."+key, "must be an integer, got %s", kindOf(v))
		return 0, false
	}
	n, err := strconv.ParseInt(num.String(), 10, 0)
	if err != nil {
		r.add(at+"."+key, "must be an integer, got %s", num)
		return 0, false
	}
	return int(n), true
}

// amount reads a money value: a string holding a plain decimal with at
// most the currency's places, above zero when positive, else zero or more.
func (r *checkoutRules) amount(m map[string]any, key, at string, required, positive bool) (decimal.Decimal, bool) {
	path := at + "." + key
	v, ok := r.field(m, key, at, required)
	if !ok {
		return decimal.Zero, false
	}
	s, ok := v.(string)
	if !ok {
		if num, isNum := v.(json.Number); isNum {
			r.add(path, "must be a string such as \"%s\": amounts are sent as strings", num)
		} else {
			r.add(path, "must be a string holding a decimal such as \"10.00\", got %s", kindOf(v))
		}
		return decimal.Zero, false
	}
	// Surrounding blanks would be refused by the service's decoder.
	if s != strings.TrimSpace(s) {
		r.add(path, "%q has blanks around the number", s)
		return decimal.Zero, false
	}
	cur := ""
	if r.currencyOK {
		cur = r.currency
	}
	parse := money.ParseNonNegative
	if positive {
		parse = money.ParsePositive
	}
	d, err := parse(s, cur)
	if err != nil {
		var merr *money.Error
		if errors.As(err, &merr) {
			r.add(path, "%q %s", s, merr.Reason)
		} else {
			r.add(path, "%s", err)
		}
		return decimal.Zero, false
	}
	return d, true
}

func (r *checkoutRules) date(m map[string]any, key, at string) {
	s, ok := r.str(m, key, at, false)
	if !ok {
		return
	}
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		r.add(at+"."+key, "%q is not a date YYYY-MM-DD", s)
	}
}

func (r *checkoutRules) timestamp(m map[string]any, key, at string, required bool) {
	s, ok := r.str(m, key, at, required)
	if !ok {
		return
	}
	// UnmarshalText is the strict RFC 3339 reading that decoding into a
	// time.Time applies.
	var t time.Time
	if err := t.UnmarshalText([]byte(s)); err != nil {
		r.add(at+"."+key, "%q is not an RFC 3339 time such as 2026-01-31T12:00:00Z", s)
	}
}

// redirectURL checks where the customer is sent back to: any absolute URL,
// since a mobile app's own scheme (myapp://checkout/done) is as valid a
// destination as a web page.
func (r *checkoutRules) redirectURL(m map[string]any, key, at string) {
	s, ok := r.str(m, key, at, false)
	if !ok || s == "" {
		return
	}
	if u, err := url.Parse(s); err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "" && u.Path == "") {
		r.add(at+"."+key, "%q is not an absolute URL (https://shop.example/done or myapp://done)", s)
	}
}

// webURL checks an optional absolute http(s) address.
func (r *checkoutRules) webURL(m map[string]any, key, at string) {
	s, ok := r.str(m, key, at, false)
	if !ok || s == "" {
		return
	}
	if !isWebURL(s) {
		r.add(at+"."+key, "%q is not an absolute http(s) URL", s)
	}
}

func isWebURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	return u.Scheme == "https" || u.Scheme == "http"
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// kindOf names a decoded JSON value's type for messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
