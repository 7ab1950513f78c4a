package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// strings a move may hold: plain, and every kind json.Marshal escapes or
// replaces.
var awkward = []string{"", "ref-1", "bnpl-0123456789abcdef01234567", `quo"te`, `back\slash`, "<b>&amp;</b>",
	"tab\there", "nl\n", "\x00\x1f", "é ü ﷼", "\u2028\u2029", "bad\xffutf8", "emoji 😀", `"captures":null,"refunds":null`}

func randomTime(r *rand.Rand) *time.Time {
	switch r.IntN(5) {
	case 0:
		return nil
	case 1:
		t := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // json.Marshal refuses it
		return &t
	case 2:
		zones := []*time.Location{time.FixedZone("+04", 4*3600), time.FixedZone("-0930", -(9*3600 + 30*60)),
			time.FixedZone("+2459", 24*3600+59*60), time.FixedZone("secs", 3*3600+7)}
		t := time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In(zones[r.IntN(len(zones))])
		return &t
	case 3:
		t := time.Date(-1+r.IntN(3)*10000, 12, 31, 23, 59, 59, r.IntN(1e9), time.UTC)
		return &t
	default:
		t := time.Unix(r.Int64N(4e9), r.Int64N(1e9)).UTC()
		return &t
	}
}

func randomDecimal(r *rand.Rand) decimal.Decimal {
	return decimal.New(r.Int64N(2e9)-1e9, -int32(r.IntN(5)))
}

func optionalDecimal(r *rand.Rand) *decimal.Decimal {
	if r.IntN(2) == 0 {
		return nil
	}
	d := randomDecimal(r)
	return &d
}

func pick(r *rand.Rand) string { return awkward[r.IntN(len(awkward))] }

func randomItems(r *rand.Rand) []wire.OrderItem {
	if r.IntN(4) != 0 {
		return nil
	}
	items := make([]wire.OrderItem, 1+r.IntN(2))
	for i := range items {
		items[i] = wire.OrderItem{Title: pick(r), Quantity: r.IntN(5), UnitPrice: randomDecimal(r), Category: pick(r)}
		if r.IntN(2) == 0 { // every field
			it := &items[i]
			it.ReferenceID, it.Description, it.DiscountAmount = pick(r), pick(r), optionalDecimal(r)
			it.ImageURL, it.ProductURL, it.Gender, it.Color, it.ProductMaterial = pick(r), pick(r), pick(r), pick(r), pick(r)
			it.SizeType, it.Size, it.Brand, it.IsRefundable = pick(r), pick(r), pick(r), optionalBool(r)
			it.Barcode, it.PPN, it.Seller = pick(r), pick(r), pick(r)
			it.Ordered, it.Captured, it.Shipped, it.Refunded = optionalInt(r), optionalInt(r), optionalInt(r), optionalInt(r)
		}
	}
	return items
}

func optionalBool(r *rand.Rand) *bool {
	if r.IntN(3) == 0 {
		return nil
	}
	b := r.IntN(2) == 0
	return &b
}

func optionalInt(r *rand.Rand) *int {
	if r.IntN(3) == 0 {
		return nil
	}
	n := r.IntN(2001) - 1000
	return &n
}

func randomBuyer(r *rand.Rand) *wire.Buyer {
	if r.IntN(3) == 0 {
		return nil
	}
	b := &wire.Buyer{Name: pick(r), Email: pick(r), Phone: pick(r)}
	if r.IntN(2) == 0 {
		b.DOB = pick(r)
	}
	return b
}

func randomAddress(r *rand.Rand) *wire.ShippingAddress {
	if r.IntN(3) == 0 {
		return nil
	}
	return &wire.ShippingAddress{City: pick(r), Address: pick(r), Zip: pick(r)}
}

func randomPayment(r *rand.Rand) *wire.Payment {
	p := &wire.Payment{ID: pick(r), Amount: randomDecimal(r), Currency: pick(r), Description: pick(r), CreatedAt: randomTime(r),
		ExpiresAt: randomTime(r), Status: pick(r), IsTest: r.IntN(2) == 0, Buyer: randomBuyer(r), ShippingAddress: randomAddress(r)}
	if r.IntN(2) == 0 {
		p.Order = &wire.Order{ReferenceID: pick(r), Items: randomItems(r), UpdatedAt: randomTime(r),
			TaxAmount: optionalDecimal(r), ShippingAmount: optionalDecimal(r), DiscountAmount: optionalDecimal(r)}
	}
	if r.IntN(2) == 0 {
		p.BuyerHistory = &wire.BuyerHistory{RegisteredSince: randomTime(r), LoyaltyLevel: r.IntN(10), WishlistCount: optionalInt(r),
			IsSocialNetworksConnected: optionalBool(r), IsPhoneNumberVerified: optionalBool(r), IsEmailVerified: optionalBool(r)}
	}
	switch r.IntN(3) {
	case 0:
	case 1:
		p.OrderHistory = []wire.OrderHistoryEntry{}
	default:
		for range 1 + r.IntN(3) {
			p.OrderHistory = append(p.OrderHistory, wire.OrderHistoryEntry{PurchasedAt: randomTime(r), Amount: randomDecimal(r),
				PaymentMethod: pick(r), Status: pick(r), Buyer: randomBuyer(r), ShippingAddress: randomAddress(r), Items: randomItems(r)})
		}
	}
	switch r.IntN(4) {
	case 0:
		p.Meta = map[string]any{"captures": nil, "refunds": nil, pick(r): pick(r), "n": float64(r.IntN(1e6)) / 7, "deep": map[string]any{"a": []any{true, 1.5e21}}}
	case 1:
		p.Meta = map[string]any{}
	}
	if r.IntN(4) == 0 {
		p.Attachment = &wire.Attachment{Body: pick(r), ContentType: "application/vnd.example+json"}
	}
	switch r.IntN(4) {
	case 0: // nil captures and refunds
	case 1:
		p.Captures, p.Refunds = []wire.Capture{}, []wire.Refund{}
	default:
		for range r.IntN(6) {
			p.Captures = append(p.Captures, wire.Capture{ID: pick(r), Amount: randomDecimal(r), ReferenceID: pick(r), CreatedAt: randomTime(r),
				TaxAmount: optionalDecimal(r), ShippingAmount: optionalDecimal(r), DiscountAmount: optionalDecimal(r), Items: randomItems(r)})
		}
		for range r.IntN(4) {
			p.Refunds = append(p.Refunds, wire.Refund{ID: pick(r), Amount: randomDecimal(r), ReferenceID: pick(r), CreatedAt: randomTime(r),
				Reason: pick(r), Items: randomItems(r)})
		}
	}
	return p
}

// marshalPayment's bytes are json.Marshal's, and it fails where
// json.Marshal does, over payments of every shape: captures and refunds
// nil, empty or many, with and without items, times in other zones and
// out of range, and strings that need escaping.
func TestMarshalPaymentIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	failed := 0
	for i := range 20000 {
		p := randomPayment(r)
		want, wantErr := json.Marshal(p)
		got, err := marshalPayment(p)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("payment %d: error %v, json.Marshal's %v", i, err, wantErr)
		}
		if err != nil {
			failed++
			continue
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("payment %d:\n got %s\nwant %s", i, got, want)
		}
	}
	if failed == 0 || failed > 19000 {
		t.Fatalf("%d of the payments failed to marshal: the cases are not what this test means", failed)
	}
}

// BenchmarkMarshalPayment marshals a payment captured eighty times, as a
// busy payment of bench/ratios.sh is.
func BenchmarkMarshalPayment(b *testing.B) {
	now := time.Now().UTC()
	p := &wire.Payment{ID: "4f68664e-b31b-406a-8b00-2c5653541e5a", Amount: decimal.RequireFromString("5000.00"), Currency: "AED",
		Buyer: &wire.Buyer{Name: "Layla Haddad", Email: "otp.success@tabby.ai", Phone: "+971500000001"}, CreatedAt: &now,
		Status: "AUTHORIZED", IsTest: true, Order: &wire.Order{ReferenceID: "ORDER-1"}, Refunds: []wire.Refund{}}
	for i := range 80 {
		p.Captures = append(p.Captures, wire.Capture{ID: "0b6e3c1a-6a3b-4d2e-9c55-1f2a3b4c5d6e", Amount: decimal.RequireFromString("0.01"),
			ReferenceID: "p" + itoaBench(i), CreatedAt: &now})
	}
	benchMarshal(b, p)
}

// benchMarshal marshals p with json.Marshal and with marshalPayment.
func benchMarshal(b *testing.B, p *wire.Payment) {
	for _, c := range []struct {
		name string
		f    func(*wire.Payment) ([]byte, error)
	}{{"json.Marshal", func(p *wire.Payment) ([]byte, error) { return json.Marshal(p) }}, {"marshalPayment", marshalPayment}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.f(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func itoaBench(i int) string { b, _ := json.Marshal(i); return string(b) }

// Encoded after the encoding of the payment before a move, a view is still
// json.Marshal's, move after move: moves appended one or a few at a time
// (of every shape), the head changing beside them (its status, its
// is_test, a field given a new value), and a list replaced rather than
// appended to, which the last id tells.
func TestMarshalPaymentAfterIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	reused, headReused := 0, 0
	for i := range 500 {
		p := randomPayment(r)
		for _, err := json.Marshal(p); err != nil; _, err = json.Marshal(p) {
			p = randomPayment(r) // one that marshals, to move from
		}
		if p.Captures == nil {
			p.Captures = []wire.Capture{}
		}
		if p.Refunds == nil {
			p.Refunds = []wire.Refund{}
		}
		var prev *movesEncoding
		for step := range 12 {
			found := *p // as the move finds it
			switch r.IntN(8) {
			case 0:
				p.Captures = append(p.Captures, wire.Capture{ID: fmt.Sprint("c", i, "-", step), Amount: randomDecimal(r), ReferenceID: pick(r),
					CreatedAt: randomTime(r), TaxAmount: optionalDecimal(r), Items: randomItems(r)})
			case 1:
				p.Refunds = append(p.Refunds, wire.Refund{ID: fmt.Sprint("r", i, "-", step), Amount: randomDecimal(r), ReferenceID: pick(r),
					CreatedAt: randomTime(r), Reason: pick(r)})
			case 2:
				p.Status, p.Description = pick(r), pick(r)
			case 3:
				if len(p.Captures) > 0 { // replaced: its last is another
					p.Captures = append([]wire.Capture(nil), p.Captures[:len(p.Captures)-1]...)
					p.Captures = append(p.Captures, wire.Capture{ID: fmt.Sprint("x", i, "-", step), Amount: randomDecimal(r)})
				}
			case 4: // a capture that closes the payment
				p.Captures = append(p.Captures, wire.Capture{ID: fmt.Sprint("c", i, "-", step), Amount: randomDecimal(r), CreatedAt: randomTime(r)})
				p.Status = pick(r)
			case 5:
				p.IsTest = !p.IsTest
			case 6: // a field given a new value, beside a move
				q := randomPayment(r)
				switch r.IntN(4) {
				case 0:
					p.Order = q.Order
				case 1:
					p.Meta = q.Meta
				case 2:
					p.Amount = randomDecimal(r)
				default:
					p.OrderHistory = q.OrderHistory
				}
				p.Refunds = append(p.Refunds, wire.Refund{ID: fmt.Sprint("r", i, "-", step), Amount: randomDecimal(r)})
			}
			want, wantErr := json.Marshal(p)
			got, enc, err := marshalPaymentAfter(p, prev, &found)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("payment %d, step %d: error %v, json.Marshal's %v", i, step, err, wantErr)
			}
			if err != nil {
				prev = nil
				continue
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("payment %d, step %d:\n got %s\nwant %s", i, step, got, want)
			}
			if prev != nil && prev.holds(p) {
				reused++
				if prev.head != nil && samePaymentBesideMoves(p, &found) {
					headReused++
				}
			}
			prev = enc
		}
	}
	if reused < 500 || headReused < 500 {
		t.Fatalf("an earlier encoding was used %d times, its head %d: the cases are not what this test means", reused, headReused)
	}
}

// A field of the payment that samePaymentBesideMoves does not compare
// would be copied from the view before a move that changed it: each is
// compared, or held by the view between its head and its tail.
func TestSamePaymentBesideMovesNamesEveryField(t *testing.T) {
	base := randomPayment(rand.New(rand.NewPCG(5, 6)))
	eachFieldChanged(t, base, paymentFieldsBesideHead, func(p *wire.Payment) bool { return samePaymentBesideMoves(p, base) })
}

// Likewise for the session kept beside the view.
func TestSameSessionNamesEveryField(t *testing.T) {
	now := time.Now()
	base := &Session{SessionID: "s", MerchantCode: "m", Region: "ae", Lang: "en", MerchantURLs: &wire.MerchantURLs{}, Token: new(string),
		SessionStatus: "created", SessionExpiresAt: now, AuthorizedAt: &now, AuthExpiresAt: &now, ClosedAt: &now}
	eachFieldChanged(t, base, nil, func(s *Session) bool { return sameSession(s, base) })
}

// eachFieldChanged checks that same answers false for a copy of base with
// any one of its fields (but skip's) given another value, and true for a
// copy as it is.
func eachFieldChanged[T any](t *testing.T, base *T, skip []string, same func(*T) bool) {
	t.Helper()
	typ := reflect.TypeFor[T]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if slices.Contains(skip, f.Name) {
			continue
		}
		c := *base
		v := reflect.ValueOf(&c).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Pointer:
			v.Set(reflect.New(f.Type.Elem()))
		case reflect.Slice:
			v.Set(reflect.MakeSlice(f.Type, 1, 1))
		case reflect.Map:
			v.Set(reflect.MakeMap(f.Type))
		case reflect.Struct: // a decimal or a time
			switch f.Type {
			case reflect.TypeFor[decimal.Decimal]():
				v.Set(reflect.ValueOf(decimal.RequireFromString("7.25")))
			case reflect.TypeFor[time.Time]():
				v.Set(reflect.ValueOf(time.Now().Add(time.Hour)))
			default:
				t.Fatalf("%s.%s (%s): the test does not know how to change it", typ, f.Name, f.Type)
			}
		default:
			t.Fatalf("%s.%s (%s): the test does not know how to change it", typ, f.Name, f.Type)
		}
		if same(&c) {
			t.Errorf("%s.%s changed, and the comparison did not see it", typ, f.Name)
		}
	}
	c := *base
	if !same(&c) {
		t.Errorf("a %s copied as it is is not the same", typ)
	}
}

// A field added to the payment (or to what it holds) and not to the
// encoder by hand would be left out of every view: a payment with every
// field of every type it holds set, at every depth, encodes as
// json.Marshal encodes it.
func TestMarshalPaymentWritesEveryField(t *testing.T) {
	var p wire.Payment
	fillEvery(t, reflect.ValueOf(&p).Elem(), "wire.Payment")
	want, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshalPayment(&p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

// fillEvery sets every exported field of v, and of what it points to or
// holds, to a value that is not empty.
func fillEvery(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Type() {
	case reflect.TypeFor[decimal.Decimal]():
		v.Set(reflect.ValueOf(decimal.RequireFromString("12.50")))
		return
	case reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 11, 29, 10, 11, 12, 13, time.UTC)))
		return
	case reflect.TypeFor[map[string]any]():
		v.Set(reflect.ValueOf(map[string]any{"customer": "c-1", "n": 2.5}))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(path)
	case reflect.Int:
		v.SetInt(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillEvery(t, v.Elem(), path)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillEvery(t, v.Index(i), fmt.Sprint(path, "[", i, "]"))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				fillEvery(t, v.Field(i), path+"."+f.Name)
			}
		}
	default:
		t.Fatalf("%s (%s): the test does not know how to fill it", path, v.Type())
	}
}

// BenchmarkMarshalNewPayment marshals a payment as a checkout makes it,
// with no moves yet and every other field set.
func BenchmarkMarshalNewPayment(b *testing.B) {
	var p wire.Payment
	fillEvery(&testing.T{}, reflect.ValueOf(&p).Elem(), "x")
	p.Captures, p.Refunds = []wire.Capture{}, []wire.Refund{}
	benchMarshal(b, &p)
}
