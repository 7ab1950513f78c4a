package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// removed marks a field to delete in an edit.
type removedField struct{}

var removed = removedField{}

// edit is one change to a checkout body: a dotted path (array indexes as
// numbers) and the value to put there.
type edit struct {
	path  string
	value any
}

func loadCheckout(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// apply sets or removes one dotted path in a decoded JSON tree.
func apply(t testing.TB, root map[string]any, e edit) {
	t.Helper()
	parts := strings.Split(e.path, ".")
	var cur any = root
	for i, p := range parts {
		last := i == len(parts)-1
		switch node := cur.(type) {
		case map[string]any:
			if last {
				if e.value == removed {
					delete(node, p)
				} else {
					node[p] = e.value
				}
				return
			}
			next, ok := node[p]
			if !ok {
				next = map[string]any{}
				node[p] = next
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(p)
			if err != nil || n >= len(node) {
				t.Fatalf("bad path %s", e.path)
			}
			if last {
				node[n] = e.value
				return
			}
			cur = node[n]
		default:
			t.Fatalf("path %s runs through a %T", e.path, cur)
		}
	}
}

func body(t testing.TB, file string, edits ...edit) []byte {
	t.Helper()
	m := loadCheckout(t, file)
	for _, e := range edits {
		apply(t, m, e)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestValidateCheckoutExamplesPass(t *testing.T) {
	for _, c := range []struct {
		file  string
		known []string
	}{
		{"checkout.json", []string{"AED"}},
		{"checkout.json", []string{"AED", "KWD"}},
		{"checkout.json", nil},
		{"checkout-kwd.json", []string{"KWD"}},
		{"checkout-sar.json", []string{"SAR"}},
	} {
		if v := ValidateCheckout(body(t, c.file), c.known); v != nil {
			t.Errorf("%s with %v: %v", c.file, c.known, v)
		}
	}
}

func TestValidateCheckoutRules(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		known []string
		edits []edit
		// want maps each expected path to a piece of its message.
		want map[string]string
	}{
		{name: "lang required", edits: []edit{{"lang", removed}}, want: map[string]string{"$.lang": "is required"}},
		{name: "lang en or ar", edits: []edit{{"lang", "fr"}}, want: map[string]string{"$.lang": "must be one of en, ar"}},
		{name: "lang type", edits: []edit{{"lang", 1}}, want: map[string]string{"$.lang": "must be a string, got a number"}},
		{name: "merchant_code required", edits: []edit{{"merchant_code", ""}}, want: map[string]string{"$.merchant_code": "must not be blank"}},
		{name: "merchant url absolute", edits: []edit{{"merchant_urls.success", "/done"}}, want: map[string]string{"$.merchant_urls.success": "not an absolute http(s) URL"}},
		{name: "merchant url garbage", edits: []edit{{"merchant_urls.cancel", "::not a url"}}, want: map[string]string{"$.merchant_urls.cancel": "not an absolute http(s) URL"}},
		{name: "merchant urls object", edits: []edit{{"merchant_urls", "https://x"}}, want: map[string]string{"$.merchant_urls": "must be an object"}},
		{name: "token type", edits: []edit{{"token", 5}}, want: map[string]string{"$.token": "string or null"}},
		{name: "payment required", edits: []edit{{"payment", removed}}, want: map[string]string{"$.payment": "is required"}},
		{name: "payment object", edits: []edit{{"payment", []any{}}}, want: map[string]string{"$.payment": "must be an object, got an array"}},

		{name: "amount required", edits: []edit{{"payment.amount", removed}}, want: map[string]string{"$.payment.amount": "is required"}},
		{name: "amount string", edits: []edit{{"payment.amount", json.Number("10.00")}}, want: map[string]string{"$.payment.amount": "amounts are sent as strings"}},
		{name: "amount positive", edits: []edit{{"payment.amount", "0.00"}}, want: map[string]string{"$.payment.amount": "greater than zero"}},
		{name: "amount negative", edits: []edit{{"payment.amount", "-5"}}, want: map[string]string{"$.payment.amount": "greater than zero"}},
		{name: "amount places AED", edits: []edit{{"payment.amount", "10.001"}}, want: map[string]string{"$.payment.amount": "AED allows at most 2 decimal places, got 3"}},
		{name: "amount places KWD ok", file: "checkout-kwd.json", edits: []edit{{"payment.amount", "10.125"}}},
		{name: "amount places KWD", file: "checkout-kwd.json", edits: []edit{{"payment.amount", "10.1255"}}, want: map[string]string{"$.payment.amount": "KWD allows at most 3"}},
		{name: "amount exponent", edits: []edit{{"payment.amount", "1e3"}}, want: map[string]string{"$.payment.amount": "exponent notation"}},
		{name: "amount plus", edits: []edit{{"payment.amount", "+10"}}, want: map[string]string{"$.payment.amount": "plus sign"}},
		{name: "amount bare fraction", edits: []edit{{"payment.amount", ".5"}}, want: map[string]string{"$.payment.amount": "digit before the point"}},
		{name: "amount fewer places", edits: []edit{{"payment.amount", "115.5"}, {"payment.order.shipping_amount", "0.0"}}},
		{name: "amount blanks", edits: []edit{{"payment.amount", " 10.00"}}, want: map[string]string{"$.payment.amount": "blanks"}},
		{name: "currency required", edits: []edit{{"payment.currency", removed}}, want: map[string]string{"$.payment.currency": "is required"}},
		{name: "currency unknown", edits: []edit{{"payment.currency", "USD"}}, want: map[string]string{"$.payment.currency": "not a currency the service settles in"}},
		{name: "currency capitals", edits: []edit{{"payment.currency", "aed"}}, want: map[string]string{"$.payment.currency": "capitals"}},
		{name: "currency of the merchant", known: []string{"AED"}, edits: []edit{{"payment.currency", "SAR"}}, want: map[string]string{"$.payment.currency": "only 'AED' is supported, but got 'SAR'"}},
		{name: "currency of the region", known: []string{"AED", "KWD"}, edits: []edit{{"payment.currency", "SAR"}}, want: map[string]string{"$.payment.currency": "only 'AED' or 'KWD' are supported in this region, but got 'SAR'"}},
		{name: "description type", edits: []edit{{"payment.description", true}}, want: map[string]string{"$.payment.description": "must be a string"}},
		{name: "service-assigned fields", edits: []edit{{"payment.id", "x"}, {"payment.status", "CLOSED"}}, want: map[string]string{"$.payment.id": "assigned by the service", "$.payment.status": "assigned by the service"}},

		{name: "buyer required", edits: []edit{{"payment.buyer", removed}}, want: map[string]string{"$.payment.buyer": "is required"}},
		{name: "buyer fields required", edits: []edit{{"payment.buyer.name", removed}, {"payment.buyer.email", removed}, {"payment.buyer.phone", nil}},
			want: map[string]string{"$.payment.buyer.name": "is required", "$.payment.buyer.email": "is required", "$.payment.buyer.phone": "is required"}},
		{name: "buyer name not blank", edits: []edit{{"payment.buyer.name", " "}}, want: map[string]string{"$.payment.buyer.name": "must not be blank"}},
		{name: "buyer contact may be empty", edits: []edit{{"payment.buyer.email", ""}, {"payment.buyer.phone", ""}}},
		{name: "buyer phone false", edits: []edit{{"payment.buyer.phone", false}}, want: map[string]string{"$.payment.buyer.phone": "must be a string, got a boolean"}},
		{name: "buyer email shape", edits: []edit{{"payment.buyer.email", "layla.example.com"}}, want: map[string]string{"$.payment.buyer.email": "not an email address"}},
		{name: "buyer email spaces", edits: []edit{{"payment.buyer.email", "la yla@example.com"}}, want: map[string]string{"$.payment.buyer.email": "not an email address"}},
		{name: "buyer dob date", edits: []edit{{"payment.buyer.dob", "12/04/1990"}}, want: map[string]string{"$.payment.buyer.dob": "not a date YYYY-MM-DD"}},
		{name: "buyer dob datetime", edits: []edit{{"payment.buyer.dob", "1990-04-12T00:00:00Z"}}, want: map[string]string{"$.payment.buyer.dob": "not a date YYYY-MM-DD"}},

		{name: "shipping required", edits: []edit{{"payment.shipping_address", removed}}, want: map[string]string{"$.payment.shipping_address": "is required"}},
		{name: "shipping fields", edits: []edit{{"payment.shipping_address.city", nil}, {"payment.shipping_address.address", removed}, {"payment.shipping_address.zip", 12345}},
			want: map[string]string{"$.payment.shipping_address.city": "required", "$.payment.shipping_address.address": "required", "$.payment.shipping_address.zip": "must be a string, got a number"}},
		{name: "shipping zip absent", edits: []edit{{"payment.shipping_address.zip", removed}}, want: map[string]string{"$.payment.shipping_address.zip": "is required"}},
		{name: "shipping empty and null", edits: []edit{{"payment.shipping_address.zip", nil}, {"payment.shipping_address.city", ""}, {"payment.shipping_address.address", "Villa 3\nStreet 5"}}},
		{name: "shipping zip empty", edits: []edit{{"payment.shipping_address.zip", ""}}},
		{name: "guest registered_since null", edits: []edit{{"payment.buyer_history.registered_since", nil}}},
		{name: "registered_since absent", edits: []edit{{"payment.buyer_history.registered_since", removed}}, want: map[string]string{"$.payment.buyer_history.registered_since": "is required"}},

		{name: "order required", edits: []edit{{"payment.order", removed}}, want: map[string]string{"$.payment.order": "is required"}},
		{name: "order reference required", edits: []edit{{"payment.order.reference_id", removed}}, want: map[string]string{"$.payment.order.reference_id": "is required"}},
		{name: "order amounts non-negative", edits: []edit{{"payment.order.tax_amount", "-1.00"}}, want: map[string]string{"$.payment.order.tax_amount": "zero or more"}},
		{name: "order amounts places", edits: []edit{{"payment.order.shipping_amount", "1.005"}}, want: map[string]string{"$.payment.order.shipping_amount": "at most 2"}},
		{name: "order updated_at", edits: []edit{{"payment.order.updated_at", "yesterday"}}, want: map[string]string{"$.payment.order.updated_at": "RFC 3339"}},
		{name: "items array", edits: []edit{{"payment.order.items", map[string]any{}}}, want: map[string]string{"$.payment.order.items": "must be an array"}},
		{name: "item object", edits: []edit{{"payment.order.items.0", "shoes"}}, want: map[string]string{"$.payment.order.items[0]": "must be an object"}},
		{name: "item required fields", edits: []edit{{"payment.order.items.0.title", removed}, {"payment.order.items.0.category", removed}, {"payment.order.items.0.unit_price", removed}},
			want: map[string]string{"$.payment.order.items[0].title": "required", "$.payment.order.items[0].category": "required", "$.payment.order.items[0].unit_price": "required"}},
		{name: "item category empty", edits: []edit{{"payment.order.items.0.category", ""}}},
		{name: "item category null", edits: []edit{{"payment.order.items.0.category", nil}}, want: map[string]string{"$.payment.order.items[0].category": "required"}},
		{name: "item quantity at least 1", edits: []edit{{"payment.order.items.1.quantity", 0}}, want: map[string]string{"$.payment.order.items[1].quantity": "at least 1, got 0"}},
		{name: "item quantity integer", edits: []edit{{"payment.order.items.1.quantity", json.Number("1.5")}}, want: map[string]string{"$.payment.order.items[1].quantity": "must be an integer"}},
		{name: "item quantity type", edits: []edit{{"payment.order.items.1.quantity", "2"}}, want: map[string]string{"$.payment.order.items[1].quantity": "must be an integer, got a string"}},
		{name: "item unit price zero ok", edits: []edit{{"payment.order.items.1.unit_price", "0.00"}}},
		{name: "item unit price negative", edits: []edit{{"payment.order.items.1.unit_price", "-1.00"}}, want: map[string]string{"$.payment.order.items[1].unit_price": "zero or more"}},
		{name: "item discount negative", edits: []edit{{"payment.order.items.0.discount_amount", "-1"}}, want: map[string]string{"$.payment.order.items[0].discount_amount": "zero or more"}},
		{name: "item urls", edits: []edit{{"payment.order.items.0.image_url", "img.png"}, {"payment.order.items.0.product_url", "https://shop.example.com/p/1"}},
			want: map[string]string{"$.payment.order.items[0].image_url": "absolute http(s) URL"}},
		{name: "item is_refundable", edits: []edit{{"payment.order.items.0.is_refundable", "yes"}}, want: map[string]string{"$.payment.order.items[0].is_refundable": "true or false"}},
		{name: "item counters", edits: []edit{{"payment.order.items.0.shipped", -1}}, want: map[string]string{"$.payment.order.items[0].shipped": "must not be negative"}},

		{name: "buyer history required", edits: []edit{{"payment.buyer_history", removed}}, want: map[string]string{"$.payment.buyer_history": "is required"}},
		{name: "buyer history fields", edits: []edit{{"payment.buyer_history.registered_since", removed}, {"payment.buyer_history.loyalty_level", removed}},
			want: map[string]string{"$.payment.buyer_history.registered_since": "is required", "$.payment.buyer_history.loyalty_level": "is required"}},
		{name: "registered_since time", edits: []edit{{"payment.buyer_history.registered_since", "2023-02-01"}}, want: map[string]string{"$.payment.buyer_history.registered_since": "RFC 3339"}},
		{name: "loyalty level", edits: []edit{{"payment.buyer_history.loyalty_level", -1}}, want: map[string]string{"$.payment.buyer_history.loyalty_level": "must not be negative"}},
		{name: "wishlist count", edits: []edit{{"payment.buyer_history.wishlist_count", "3"}}, want: map[string]string{"$.payment.buyer_history.wishlist_count": "must be an integer"}},
		{name: "history booleans", edits: []edit{{"payment.buyer_history.is_email_verified", 1}}, want: map[string]string{"$.payment.buyer_history.is_email_verified": "true or false"}},

		{name: "order history array", edits: []edit{{"payment.order_history", map[string]any{}}}, want: map[string]string{"$.payment.order_history": "must be an array"}},
		{name: "order history entry", edits: []edit{{"payment.order_history.0.purchased_at", removed}, {"payment.order_history.0.status", removed}, {"payment.order_history.0.amount", "-3"}},
			want: map[string]string{"$.payment.order_history[0].purchased_at": "required", "$.payment.order_history[0].status": "required", "$.payment.order_history[0].amount": "zero or more"}},
		{name: "order history buyer", edits: []edit{{"payment.order_history.0.buyer", map[string]any{"email": "nope", "dob": "1990"}}},
			want: map[string]string{"$.payment.order_history[0].buyer.email": "email", "$.payment.order_history[0].buyer.dob": "YYYY-MM-DD"}},
		{name: "order history items", edits: []edit{{"payment.order_history.0.items", []any{map[string]any{"title": "x", "quantity": 0, "unit_price": "1.00", "category": "c"}}}},
			want: map[string]string{"$.payment.order_history[0].items[0].quantity": "at least 1"}},

		{name: "field names are case-sensitive", edits: []edit{{"payment.order.items.0.Quantity", "2"}},
			want: map[string]string{"$.payment.order.items[0].Quantity": "case-sensitive: write \"quantity\""}},
		{name: "meta object", edits: []edit{{"payment.meta", "order 1"}}, want: map[string]string{"$.payment.meta": "must be an object"}},
		{name: "attachment ok", edits: []edit{{"payment.attachment", map[string]any{"body": `{"flight":"EK1"}`, "content_type": "application/vnd.acme-travel.v1+json"}}}},
		{name: "attachment body json", edits: []edit{{"payment.attachment", map[string]any{"body": "not json", "content_type": "application/vnd.acme.v1+json"}}},
			want: map[string]string{"$.payment.attachment.body": "serialized JSON"}},
		{name: "attachment content type", edits: []edit{{"payment.attachment", map[string]any{"body": "{}", "content_type": "application/json"}}},
			want: map[string]string{"$.payment.attachment.content_type": "vendor type"}},
		{name: "attachment version", edits: []edit{{"payment.attachment", map[string]any{"body": "{}", "content_type": "application/vnd.acme.v2+json"}}},
			want: map[string]string{"$.payment.attachment.content_type": "vendor type"}},
		// An empty attachment is taken as absent; one with a field needs
		// the other too.
		{name: "attachment required parts", edits: []edit{{"payment.attachment", map[string]any{"body": "{}"}}},
			want: map[string]string{"$.payment.attachment.content_type": "required"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := c.file
			if file == "" {
				file = "checkout.json"
			}
			v := ValidateCheckout(body(t, file, c.edits...), c.known)
			if len(c.want) == 0 {
				if v != nil {
					t.Fatalf("want no problems, got %v", v)
				}
				return
			}
			if v == nil {
				t.Fatalf("want problems at %v, got none", c.want)
			}
			got := map[string]string{}
			for _, p := range v.Problems {
				got[p.Path] = p.Message
			}
			for path, piece := range c.want {
				msg, ok := got[path]
				if !ok {
					t.Errorf("no problem at %s; got %v", path, v.Problems)
					continue
				}
				if !strings.Contains(msg, piece) {
					t.Errorf("%s: %q does not say %q", path, msg, piece)
				}
			}
			if len(got) != len(c.want) {
				t.Errorf("got %d problems, want %d: %v", len(got), len(c.want), v.Problems)
			}
		})
	}
}

func TestValidateCheckoutReportsEverythingAtOnce(t *testing.T) {
	v := ValidateCheckout(body(t, "checkout.json",
		edit{"lang", "de"},
		edit{"payment.amount", "1.234"},
		edit{"payment.buyer.email", "x"},
		edit{"payment.order.items.0.quantity", 0},
	), []string{"AED"})
	if v == nil || len(v.Problems) != 4 {
		t.Fatalf("want 4 problems, got %v", v)
	}
	if ExitCodeOf(v) != exitUsage {
		t.Errorf("exit %d", ExitCodeOf(v))
	}
}

func TestValidateCheckoutNotAnObject(t *testing.T) {
	for _, in := range []string{``, `[]`, `"x"`, `{`, `{} {}`, `null`, `{"payment":{}} x`} {
		v := ValidateCheckout([]byte(in), nil)
		if v == nil || len(v.Problems) != 1 || v.Problems[0].Path != "$" {
			t.Errorf("%q: %v", in, v)
		}
	}
}

func TestValidateOrderItems(t *testing.T) {
	if v := ValidateOrderItems([]byte(`[{"title":"a","quantity":1,"unit_price":"1.50","category":"c"}]`), "AED"); v != nil {
		t.Errorf("valid items: %v", v)
	}
	v := ValidateOrderItems([]byte(`[{"title":"a","quantity":0,"unit_price":"1.505","category":"c"}, 3]`), "AED")
	if v == nil || len(v.Problems) != 3 {
		t.Fatalf("want 3 problems, got %v", v)
	}
	for _, want := range []string{"$.items[0].quantity", "$.items[0].unit_price", "$.items[1]"} {
		found := false
		for _, p := range v.Problems {
			found = found || p.Path == want
		}
		if !found {
			t.Errorf("no problem at %s: %v", want, v.Problems)
		}
	}
	if v := ValidateOrderItems([]byte(`{"title":"a"}`), ""); v == nil || v.Problems[0].Path != "$.items" {
		t.Errorf("object instead of array: %v", v)
	}
}

// ExitCodeOf is the exit code an error carries.
func ExitCodeOf(err error) int {
	if c, ok := err.(interface{ ExitCode() int }); ok {
		return c.ExitCode()
	}
	return -1
}

// FuzzValidateCheckout: no input panics, and whatever the rules accept
// decodes into CheckoutRequest, the way the sandbox reads it.
func FuzzValidateCheckout(f *testing.F) {
	for _, name := range []string{"checkout.json", "checkout-kwd.json", "checkout-sar.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"payment":{"amount":"1e3","currency":"AED"}}`))
	f.Add([]byte(`{"payment":{"amount":" 10.00 ","order":{"items":[{"quantity":1.0}]}}}`))
	f.Add([]byte(`{"lang":"en","merchant_code":"m","payment":{"amount":"10","currency":"AED","buyer":{"name":"a","email":"a@b.c","phone":"1"},"shipping_address":{"city":"c","address":"a","zip":"z"},"order":{"reference_id":"r"},"buyer_history":{"registered_since":"2020-01-01T00:00:00Z","loyalty_level":0}}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, in []byte) {
		v := ValidateCheckout(in, nil)
		if v != nil {
			if len(v.Problems) == 0 {
				t.Fatal("a *ValidationError with no problems")
			}
			for _, p := range v.Problems {
				if !strings.HasPrefix(p.Path, "$") || p.Message == "" {
					t.Fatalf("problem without a JSON path or message: %+v", p)
				}
			}
			return
		}
		var req CheckoutRequest
		if err := json.Unmarshal(in, &req); err != nil {
			t.Fatalf("accepted, but does not decode: %v\n%s", err, in)
		}
		if !req.Payment.Amount.IsPositive() {
			t.Fatalf("accepted a non-positive amount: %s", req.Payment.Amount)
		}
	})
}

// The hosted page sends the customer back by a redirect: only http(s)
// destinations are taken, so javascript: or data: can never be followed.
func TestValidateCheckoutRefusesNonWebRedirects(t *testing.T) {
	for _, u := range []string{"myapp://checkout/success", "javascript:alert(1)", "data:text/html,x", "myapp:failed", "//shop.example/x"} {
		var doc map[string]any
		if err := json.Unmarshal(mustRead(t, "../../testdata/checkout.json"), &doc); err != nil {
			t.Fatal(err)
		}
		doc["merchant_urls"] = map[string]any{"success": u, "cancel": "https://shop.example/c"}
		body, _ := json.Marshal(doc)
		v := ValidateCheckout(body, []string{"AED"})
		if v == nil || !strings.Contains(v.Error(), "$.merchant_urls.success") {
			t.Errorf("redirect %q: got %v, want a refusal naming $.merchant_urls.success", u, v)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckoutWithADuplicateKeyIsRefused(t *testing.T) {
	body := []byte(`{"payment":{"amount":"1","amount":"2","currency":"AED"}}`)
	v := ValidateCheckout(body, nil)
	if v == nil {
		t.Fatal("accepted")
	}
	for _, p := range v.Problems {
		if p.Path == "$.payment.amount" && p.Message == "appears twice in its object: keep one" {
			return
		}
	}
	t.Fatalf("no duplicate-key problem: %+v", v.Problems)
}
