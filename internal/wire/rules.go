package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/jsontree"
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

// Finding is one rule a request breaks, as both sides of the interface
// report it: the client's local check prints Path and Message and sends
// nothing; the sandbox answers Path, Code and Service in the service's
// field-validation form, or, for a Value finding, Service alone in the
// simple form ("could not create payment: ..."), as the service does for
// its second line of validation.
type Finding struct {
	Path    string
	Code    string // "required" or "invalid_value"
	Message string // for a person at a terminal
	Service string // in the service's words
	Value   bool   // a value out of range rather than a malformed field
	Type    bool   // a JSON value of the wrong type, which the service cannot decode
}

// Finding codes, as the service's field-validation form names them.
const (
	CodeRequired = "required"
	CodeInvalid  = "invalid_value"
)

// CheckCheckout applies the checkout rules to a POST /api/v2/checkout
// body: the client's local check and the sandbox's answer are both made
// from its findings. decoded is false when the body is not one JSON value.
func CheckCheckout(body []byte) (findings []Finding, decoded bool) {
	return CheckCheckoutIn(body, nil)
}

// CheckCheckoutIn is CheckCheckout with the currencies the merchant may use
// (its country's); nil allows any the service settles in.
func CheckCheckoutIn(body []byte, knownCurrencies []string) ([]Finding, bool) {
	doc, err := jsontree.DecodeDoc(body)
	if err != nil || !jsontree.OnlySpace(body[doc.End:]) {
		return nil, false
	}
	return CheckCheckoutTree(body, doc, knownCurrencies), true
}

// CheckCheckoutTree is CheckCheckoutIn for a body already decoded into
// doc, its one JSON value (the sandbox decodes a body once for its bounds
// and its rules).
func CheckCheckoutTree(body []byte, doc jsontree.Doc, knownCurrencies []string) []Finding {
	r := &checkoutRules{known: knownCurrencies, lowerNames: doc.LowerNames}
	top, ok := doc.Value.(map[string]any)
	if !ok {
		r.wrongType("$", "must be a JSON object, got %s", kindOf(doc.Value))
		return r.findings
	}
	if doc.Repeats {
		for _, path := range walkDuplicateKeys(body) {
			r.add(path, RepeatedNameMessage)
		}
	}

	if lang, ok := r.str(top, "lang", "$", nonBlank); ok && !oneOf(lang, CheckoutLangs) {
		r.addFinding(Finding{Path: "$.lang", Code: CodeInvalid,
			Message: fmt.Sprintf("must be one of %s, got %q", strings.Join(CheckoutLangs, ", "), lang),
			Service: "must be one of: ar, en"})
	}
	r.str(top, "merchant_code", "$", nonBlank)
	if urls, ok := r.obj(top, "merchant_urls", "$", false); ok {
		for _, name := range []string{"success", "cancel", "failure"} {
			r.redirectURL(urls, name, "$.merchant_urls")
		}
	}
	if tok, present := top["token"]; present && tok != nil {
		if _, ok := tok.(string); !ok {
			r.wrongType("$.token", "must be a string or null, got %s", kindOf(tok))
		}
	}

	p, ok := r.obj(top, "payment", "$", true)
	if !ok {
		return r.findings
	}
	r.payment(p)
	return r.findings
}

// CheckMoveItems applies the rules of a capture's or a refund's items to
// their JSON, with the places of currency ("" when not known yet). The
// interface leaves which item fields a capture or a refund must carry
// unsaid, and the service's own plugins send items with no category, so
// only what is sent is checked. decoded is false when body is not one JSON
// value.
func CheckMoveItems(body []byte, currency string) (findings []Finding, decoded bool) {
	root, ok := decodeTree(body)
	if !ok {
		return nil, false
	}
	r := &checkoutRules{currency: strings.ToUpper(currency), currencyOK: money.Known(currency)}
	for _, path := range duplicateKeys(body) {
		r.add("$.items"+strings.TrimPrefix(path, "$"), RepeatedNameMessage)
	}
	list, ok := root.([]any)
	if !ok {
		r.wrongType("$.items", "must be a JSON array of items, got %s", kindOf(root))
		return r.findings, true
	}
	for i, it := range list {
		r.item(it, fmt.Sprintf("$.items[%d]", i), looseItem)
	}
	return r.findings, true
}

// DecodeTree reads exactly one JSON value with its numbers kept as
// written, the way the rules read it; ok is false when body is not one
// JSON value.
func DecodeTree(body []byte) (any, bool) { return decodeTree(body) }

// decodeTree reads exactly one JSON value, numbers kept as written.
func decodeTree(body []byte) (any, bool) { return jsontree.DecodeOne(body) }

// need says what a string field must hold.
type need int

const (
	optional   need = iota // may be absent, null or empty
	nonBlank               // required: present, not null, not blank
	mayBeEmpty             // required: present and not null, but may be ""
	mayBeNull              // required: present, but may be "" or null
)

// itemKind says which rules an item follows: the payment's own order
// items carry every required field; items of an order-history entry and
// of a capture or refund are checked for what they send.
type itemKind int

const (
	orderItem itemKind = iota
	looseItem
)

type checkoutRules struct {
	findings []Finding
	known    []string
	// lower remembers, for the objects judged last, whether all their
	// names are lowerName (lowerCase): the rules read an object's fields
	// one after another, at most a few objects deep.
	lower     [4]lowerObject
	lowerNext int
	// lowerNames: every name of the document is jsontree.LowerName, so
	// none matches another but itself regardless of case.
	lowerNames bool
	// currency of the payment, for the places of every amount;
	// currencyOK is false when it is missing or unknown, and places are
	// then not checked (the currency's own problem says enough).
	currency   string
	currencyOK bool
}

// add records a malformed field; the service is told what the person is.
func (r *checkoutRules) add(path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.findings = append(r.findings, Finding{Path: path, Code: CodeInvalid, Message: msg, Service: msg})
}

func (r *checkoutRules) addFinding(f Finding) { r.findings = append(r.findings, f) }

// wrongType records a value of the wrong JSON type.
func (r *checkoutRules) wrongType(path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.findings = append(r.findings, Finding{Path: path, Code: CodeInvalid, Message: msg, Service: msg, Type: true})
}

func (r *checkoutRules) required(path, message string) {
	r.findings = append(r.findings, Finding{Path: path, Code: CodeRequired, Message: message, Service: "is required"})
}

// value records an amount or a count out of the range the service takes;
// service is its simple-form message.
func (r *checkoutRules) value(path, service, format string, args ...any) {
	r.findings = append(r.findings, Finding{Path: path, Code: CodeInvalid, Message: fmt.Sprintf(format, args...),
		Service: "could not create payment: " + service, Value: true})
}

func (r *checkoutRules) payment(p map[string]any) {
	const at = "$.payment"
	for _, k := range serviceAssigned {
		if _, present := p[k]; present {
			r.add(at+"."+k, "is assigned by the service; leave it out of the request")
		}
	}

	if cur, ok := r.str(p, "currency", at, nonBlank); ok {
		r.checkCurrency(cur)
	}
	if d, ok := r.amount(p, "amount", at, true); ok && !d.IsPositive() {
		r.value(at+".amount", "should be positive", "%q must be greater than zero", written(p, "amount"))
	}
	r.str(p, "description", at, optional)

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
			r.historyEntry(e, at+".order_history["+strconv.Itoa(i)+"]")
		}
	}
	r.obj(p, "meta", at, false)
	// An empty attachment ({}) is taken as absent: the interface marks the
	// attachment optional and none of its fields required, and third-party
	// integrations send it so (docs/sandbox.md, "Differences found").
	if a, ok := r.obj(p, "attachment", at, false); ok && len(a) > 0 {
		r.attachment(a, at+".attachment")
	}
}

func (r *checkoutRules) checkCurrency(cur string) {
	const path = "$.payment.currency"
	upper := strings.ToUpper(cur)
	if !money.Known(upper) {
		r.addFinding(Finding{Path: path, Code: CodeInvalid,
			Message: fmt.Sprintf("%q is not a currency the service settles in (%s)", cur, strings.Join(money.Currencies(), ", ")),
			Service: "must be one of: " + strings.Join(money.Currencies(), ", ")})
		return
	}
	if cur != upper {
		// ISO 4217 writes codes in capitals, and so does the service.
		r.addFinding(Finding{Path: path, Code: CodeInvalid,
			Message: fmt.Sprintf("write the currency in capitals: %q, not %q", upper, cur),
			Service: "must be one of: " + strings.Join(money.Currencies(), ", ")})
		return
	}
	r.currency, r.currencyOK = upper, true
	if known := r.known; len(known) > 0 && !oneOf(upper, known) {
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

// buyer: the payment's buyer has a name; an email and a phone are present
// but may be empty (a store that has neither yet sends "", as the service's
// own Magento module does). A history entry's buyer is checked for types.
func (r *checkoutRules) buyer(b map[string]any, at string, strict bool) {
	name, contact := optional, optional
	if strict {
		name, contact = nonBlank, mayBeEmpty
	}
	r.str(b, "name", at, name)
	if email, ok := r.str(b, "email", at, contact); ok && email != "" && !emailShape().MatchString(email) {
		r.addFinding(Finding{Path: at + ".email", Code: CodeInvalid,
			Message: fmt.Sprintf("%q is not an email address", email), Service: "is not a valid email address"})
	}
	r.str(b, "phone", at, contact)
	r.date(b, "dob", at)
}

// address: the payment's shipping address carries city, address and zip,
// each present; most of the UAE has no postal code, and the service's own
// plugins send an empty city, address or zip, and a zip of null, for what
// the store does not know. A history entry's address is checked for types.
func (r *checkoutRules) address(a map[string]any, at string, strict bool) {
	line, zip := optional, optional
	if strict {
		line, zip = mayBeEmpty, mayBeNull
	}
	r.str(a, "city", at, line)
	r.str(a, "address", at, line)
	r.str(a, "zip", at, zip)
}

func (r *checkoutRules) order(o map[string]any, at string) {
	r.str(o, "reference_id", at, nonBlank)
	r.timestamp(o, "updated_at", at, false)
	for _, k := range []string{"tax_amount", "shipping_amount", "discount_amount"} {
		if d, ok := r.amount(o, k, at, false); ok && d.IsNegative() {
			r.value(at+"."+k, "order amounts should be positive or zero", "%q must be zero or more", written(o, k))
		}
	}
	if items, ok := r.arr(o, "items", at); ok {
		for i, it := range items {
			r.item(it, at+".items["+strconv.Itoa(i)+"]", orderItem)
		}
	}
}

func (r *checkoutRules) item(v any, at string, kind itemKind) {
	it, ok := v.(map[string]any)
	if !ok {
		r.wrongType(at, "must be an object, got %s", kindOf(v))
		return
	}
	strict := kind == orderItem
	title, category := optional, optional
	if strict {
		// A product with no category is sent with "" by the service's
		// own Magento module; the category must still be there.
		title, category = nonBlank, mayBeEmpty
	}
	r.str(it, "title", at, title)
	if q, ok := r.integer(it, "quantity", at, strict); ok && q < 1 {
		r.value(at+".quantity", "item quantity should be positive", "must be at least 1, got %d", q)
	}
	if d, ok := r.amount(it, "unit_price", at, strict); ok && d.IsNegative() {
		r.value(at+".unit_price", "item unit price should be positive or zero", "%q must be zero or more", written(it, "unit_price"))
	}
	r.str(it, "category", at, category)
	if d, ok := r.amount(it, "discount_amount", at, false); ok && d.IsNegative() {
		r.value(at+".discount_amount", "item discount amount should be positive or zero", "%q must be zero or more", written(it, "discount_amount"))
	}
	for _, k := range []string{"reference_id", "description", "gender", "color", "product_material",
		"size_type", "size", "brand", "barcode", "ppn", "seller"} {
		r.str(it, k, at, optional)
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

// buyerHistory: registered_since is present; a guest has no registration
// date, and the service's own Magento module sends null for it.
func (r *checkoutRules) buyerHistory(h map[string]any, at string) {
	if _, present := h["registered_since"]; !present {
		r.field(h, "registered_since", at, true)
	} else {
		r.timestamp(h, "registered_since", at, false)
	}
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

// historyEntry: the interface requires purchased_at, amount and status of
// an entry; its items are checked for what they send, since the service's
// own plugins send history items with no category and no quantity.
func (r *checkoutRules) historyEntry(v any, at string) {
	e, ok := v.(map[string]any)
	if !ok {
		r.wrongType(at, "must be an object, got %s", kindOf(v))
		return
	}
	r.timestamp(e, "purchased_at", at, true)
	if d, ok := r.amount(e, "amount", at, true); ok && d.IsNegative() {
		r.value(at+".amount", "order history amount should be positive or zero", "%q must be zero or more", written(e, "amount"))
	}
	r.str(e, "status", at, nonBlank)
	r.str(e, "payment_method", at, optional)
	if b, ok := r.obj(e, "buyer", at, false); ok {
		r.buyer(b, at+".buyer", false)
	}
	if a, ok := r.obj(e, "shipping_address", at, false); ok {
		r.address(a, at+".shipping_address", false)
	}
	if items, ok := r.arr(e, "items", at); ok {
		for i, it := range items {
			r.item(it, at+".items["+strconv.Itoa(i)+"]", looseItem)
		}
	}
}

func (r *checkoutRules) attachment(a map[string]any, at string) {
	if body, ok := r.str(a, "body", at, nonBlank); ok && !json.Valid([]byte(body)) {
		r.add(at+".body", "must hold serialized JSON")
	}
	if ct, ok := r.str(a, "content_type", at, nonBlank); ok && !attachmentContentType().MatchString(ct) {
		r.addFinding(Finding{Path: at + ".content_type", Code: CodeInvalid,
			Message: fmt.Sprintf("%q is not a vendor type such as application/vnd.acme.v1+json", ct),
			Service: "must be application/vnd.<vendor>.v1+json"})
	}
}

// ---- typed field readers: each reports its own problem ----

// field reads m[key]; a JSON null counts as absent. A missing required
// field is reported here.
func (r *checkoutRules) field(m map[string]any, key, at string, required bool) (any, bool) {
	// Go's decoder, the service's and the sandbox's, matches field names
	// regardless of case, so "Quantity" would silently stand in for (or
	// override) "quantity" with a value these rules never saw.
	if !r.lowerNames && (!r.lowerCase(m) || !jsontree.LowerName(key)) {
		for k := range m {
			if k != key && strings.EqualFold(k, key) {
				r.add(at+"."+k, "field names are case-sensitive: write %q", key)
			}
		}
	}
	v, present := m[key]
	if !present || v == nil {
		if required {
			r.required(at+"."+key, "is required")
		}
		return nil, false
	}
	return v, true
}

// lowerCase tells whether every name in m is jsontree.LowerName: no name
// of such an object can match another name but its own regardless of
// case. An object is judged once, not once a field.
func (r *checkoutRules) lowerCase(m map[string]any) bool {
	p := reflect.ValueOf(m).UnsafePointer()
	for _, o := range r.lower {
		if o.m == p {
			return o.lower
		}
	}
	lower := true
	for k := range m {
		if !jsontree.LowerName(k) {
			lower = false
			break
		}
	}
	r.lower[r.lowerNext] = lowerObject{m: p, lower: lower}
	r.lowerNext = (r.lowerNext + 1) % len(r.lower)
	return lower
}

// A lowerObject is an object judged by lowerCase.
type lowerObject struct {
	m     unsafe.Pointer // nil: none yet
	lower bool
}

// str reads a string as n says; ok is false when it is absent, null, not a
// string, or refused.
func (r *checkoutRules) str(m map[string]any, key, at string, n need) (string, bool) {
	if _, present := m[key]; n == mayBeNull && present {
		n = optional // present: null and "" are both taken
	}
	v, ok := r.field(m, key, at, n != optional)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		r.wrongType(at+"."+key, "must be a string, got %s", kindOf(v))
		return "", false
	}
	if n == nonBlank && strings.TrimSpace(s) == "" {
		r.required(at+"."+key, "is required and must not be blank")
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
		r.wrongType(at+"."+key, "must be an object, got %s", kindOf(v))
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
		r.wrongType(at+"."+key, "must be an array, got %s", kindOf(v))
		return nil, false
	}
	return a, true
}

func (r *checkoutRules) boolean(m map[string]any, key, at string) {
	if v, ok := r.field(m, key, at, false); ok {
		if _, ok := v.(bool); !ok {
			r.wrongType(at+"."+key, "must be true or false, got %s", kindOf(v))
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
		r.wrongType(at+"."+key, "must be an integer, got %s", kindOf(v))
		return 0, false
	}
	n, err := strconv.ParseInt(num.String(), 10, 0)
	if err != nil {
		r.wrongType(at+"."+key, "must be an integer, got %s", num)
		return 0, false
	}
	return int(n), true
}

// amount reads a money value: a JSON string in the amount grammar of
// internal/money with at most the currency's places. Its sign is the
// caller's to judge.
func (r *checkoutRules) amount(m map[string]any, key, at string, required bool) (decimal.Decimal, bool) {
	v, ok := r.field(m, key, at, required)
	if !ok {
		return decimal.Zero, false
	}
	cur := ""
	if r.currencyOK {
		cur = r.currency
	}
	d, f := CheckAmount(v, "", cur)
	if f != nil {
		f.Path = at + "." + key // made for a finding only
		r.addFinding(*f)
		return decimal.Zero, false
	}
	return d, true
}

// CheckAmount reads one decoded JSON value (numbers as json.Number) as an
// amount in currency ("" for the syntax only), the one way the client and
// the sandbox read every amount: a string, never a JSON number, since the
// interface and the published OpenAPI type amounts as strings; in the
// grammar of money.Parse. The finding, when there is one, is at path.
func CheckAmount(v any, path, currency string) (decimal.Decimal, *Finding) {
	s, ok := v.(string)
	if !ok {
		f := &Finding{Path: path, Code: CodeInvalid, Type: true}
		if num, isNum := v.(json.Number); isNum {
			f.Message = fmt.Sprintf("must be a string such as \"%s\": amounts are sent as strings", num)
			f.Service = fmt.Sprintf("must be a string, but got the number %s", num)
		} else {
			f.Message = fmt.Sprintf("must be a string holding a decimal such as \"10.00\", got %s", kindOf(v))
			f.Service = "must be a string holding a decimal, but got " + kindOf(v)
		}
		return decimal.Zero, f
	}
	if reason := money.Syntax(s); reason != "" {
		_, err := decimal.NewFromString(strings.TrimSpace(s))
		return decimal.Zero, &Finding{Path: path, Code: CodeInvalid, Message: fmt.Sprintf("%q %s", s, reason),
			Service: serviceSyntax(s, reason), Type: err != nil}
	}
	d, err := money.Parse(s, currency)
	if err != nil {
		var merr *money.Error
		reason := err.Error()
		if errors.As(err, &merr) {
			reason = merr.Reason
		}
		return decimal.Zero, &Finding{Path: path, Code: CodeInvalid, Message: fmt.Sprintf("%q %s", s, reason),
			Service: fmt.Sprintf("money supports only %d decimal places, but got: %d", money.Places(currency), places(s))}
	}
	return d, nil
}

// serviceSyntax words a refused amount the service's way: its decimal
// reader's message for what is no number at all, the sandbox's own for a
// number written outside the grammar.
func serviceSyntax(s, reason string) string {
	if _, err := decimal.NewFromString(strings.TrimSpace(s)); err != nil {
		return fmt.Sprintf("error decoding string '%s': can't convert %s to decimal", s, s)
	}
	if strings.ContainsAny(s, "eE") && strings.TrimSpace(s) == s {
		return fmt.Sprintf("exponent notation is not supported, but got '%s': write a plain decimal such as 100.00", s)
	}
	return fmt.Sprintf("'%s' %s", s, reason)
}

// places of an amount as written.
func places(s string) int {
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

func (r *checkoutRules) date(m map[string]any, key, at string) {
	s, ok := r.str(m, key, at, optional)
	if !ok {
		return
	}
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		r.addFinding(Finding{Path: at + "." + key, Code: CodeInvalid,
			Message: fmt.Sprintf("%q is not a date YYYY-MM-DD", s), Service: "must be a date YYYY-MM-DD"})
	}
}

func (r *checkoutRules) timestamp(m map[string]any, key, at string, required bool) {
	n := optional
	if required {
		n = nonBlank
	}
	s, ok := r.str(m, key, at, n)
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

// redirectURL checks where the customer is sent back to: an absolute http
// or https URL. The hosted page follows it in a redirect, so any other
// scheme (javascript:, data:, an app's own) is refused here, by the client
// and the sandbox alike.
func (r *checkoutRules) redirectURL(m map[string]any, key, at string) {
	r.httpURL(m, key, at, " such as https://shop.example/done")
}

// webURL checks an optional absolute http(s) address.
func (r *checkoutRules) webURL(m map[string]any, key, at string) { r.httpURL(m, key, at, "") }

// httpURL checks an optional absolute http(s) URL; a refusal ends with
// example.
func (r *checkoutRules) httpURL(m map[string]any, key, at, example string) {
	s, ok := r.str(m, key, at, optional)
	if !ok || s == "" {
		return
	}
	if !isWebURL(s) {
		r.add(at+"."+key, "%q is not an absolute http(s) URL%s", s, example)
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

// written is a string field as sent, for messages that quote it.
func written(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
