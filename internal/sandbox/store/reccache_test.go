package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/shopspring/decimal"
)

// richRecord is a record with what JSON changes on its way through: a
// time with a monotonic reading, one in a zone of its own, decimals with
// trailing zeros, empty omitempty slices, a meta of nested values, the
// fields JSON skips set.
func richRecord() *Record {
	now := time.Now().UTC() // carries a monotonic reading
	dubai := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("GST", 4*3600))
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	tax := d("1.50")
	token := "tok"
	return &Record{
		Payment: wire.Payment{
			ID: "p-1", Amount: d("100.00"), Currency: "AED", Status: wire.StatusAuthorized, CreatedAt: &now,
			Buyer: &wire.Buyer{Name: "A <b>&", Email: "a@example.com"},
			Order: &wire.Order{ReferenceID: "r", Items: []wire.OrderItem{}, UpdatedAt: &dubai, TaxAmount: &tax},
			Captures: []wire.Capture{{ID: "c", Amount: d("0.010"), CreatedAt: &now, Items: []wire.OrderItem{}},
				{ID: "c2", Amount: d("2"), ReferenceID: "x", TaxAmount: &tax}},
			Meta: map[string]any{"n": 1.5, "s": "v", "l": []any{true, nil, map[string]any{"k": 2.0}}, "e": map[string]any{}},
		},
		Session: Session{SessionID: "s-1", MerchantCode: "ae-sandbox", Region: "ae", Token: &token,
			SessionStatus: "created", SessionExpiresAt: dubai, AuthorizedAt: &now},
		View: []byte(`{}`),
	}
}

// A cached copy is what decoding the record's doc answers.
func TestCacheCopyIsTheDecoding(t *testing.T) {
	for name, rec := range map[string]*Record{"rich": richRecord(), "bare": {Payment: wire.Payment{ID: "p"}}} {
		view, session, err := encodeRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		doc := joinDoc(view, session)
		want, err := DecodeRecord(doc, "id", rec.Payment.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := cacheCopy(rec)
		if !ok {
			t.Fatalf("%s: not cached", name)
		}
		if path, ok := alike(reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem(), "record"); !ok {
			t.Errorf("%s: the copy differs from the decoding at %s", name, path)
		}
		if name != "rich" {
			continue
		}
		// The copy shares nothing that a move could change in place.
		got.Payment.Order.ReferenceID = "changed"
		got.Payment.Captures[0].ID = "changed"
		got.Payment.Meta["s"] = "changed"
		if rec.Payment.Order.ReferenceID == "changed" || rec.Payment.Captures[0].ID == "changed" || rec.Payment.Meta["s"] == "changed" {
			t.Error("the copy shares memory with the record")
		}
	}
}

// alike tells a record from one decoded otherwise, so that the check of
// race builds can fail.
func TestAlikeTellsDifferences(t *testing.T) {
	a, b := richRecord(), richRecord()
	b.Payment.Captures[1].Amount = decimal.RequireFromString("2.01")
	if _, ok := alike(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), "record"); ok {
		t.Error("a different decimal is alike")
	}
	c := richRecord()
	c.Payment.Order.Items = nil
	if path, ok := alike(reflect.ValueOf(a).Elem(), reflect.ValueOf(c).Elem(), "record"); ok || !strings.Contains(path, "Items") {
		t.Errorf("a nil slice and an empty one are alike (%s)", path)
	}
}

// What JSON would change and the copy cannot tell is not cached.
func TestCacheCopyRefusesWhatJSONWouldChange(t *testing.T) {
	for name, change := range map[string]func(*Record){
		"not UTF-8":  func(r *Record) { r.Payment.Description = "\xff" },
		"int in any": func(r *Record) { r.Payment.Meta["i"] = 3 },
	} {
		rec := richRecord()
		change(rec)
		if _, ok := cacheCopy(rec); ok {
			t.Errorf("%s: cached", name)
		}
	}
}

// A move uses the cached record only when the stored doc is the one it
// was made from: a payment changed behind the cache's back (another
// process) is decoded again.
func TestRecordCacheFollowsTheStoredDoc(t *testing.T) {
	st, id := openTestState(t)
	ctx := context.Background()
	capture := func(ref string) *Record {
		t.Helper()
		rec, err := st.Move(ctx, id, nil, func(r *Record, _ time.Time) (string, error) {
			r.Payment.Captures = append(r.Payment.Captures, wire.Capture{ID: ref, ReferenceID: ref, Amount: decimal.RequireFromString("1.00")})
			return "captured", nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	capture("a")
	capture("b") // from the cache
	// Another writer rewrites the payment's view.
	if _, err := st.DB.Exec(`UPDATE payments SET view = json_set(view, '$.captures[0].reference_id', 'z') WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	rec := capture("c")
	var refs []string
	for _, c := range rec.Payment.Captures {
		refs = append(refs, c.ReferenceID)
	}
	if got := strings.Join(refs, ","); got != "z,b,c" {
		t.Fatalf("captures after an outside change: %s, want z,b,c", got)
	}
}

// fill sets every exported field JSON encodes of v to a value that is not
// zero (n tells values apart), so that a copy that misses or shares one
// shows.
func fill(v reflect.Value, n int) {
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, n, time.FixedZone("", 3600*(n%5)))))
		return
	case reflect.TypeFor[decimal.Decimal]():
		v.Set(reflect.ValueOf(decimal.New(int64(n)*100, -2)))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), n+1)
		fill(v.Index(1), n+2)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n+i)
			}
		}
	case reflect.String:
		v.SetString("s" + strings.Repeat("x", n%7))
	case reflect.Int:
		v.SetInt(int64(n))
	case reflect.Bool:
		v.SetBool(true)
	}
}

// sharedAt answers where a and b share memory a change in place would
// reach (a pointer or a slice's array), "" when nowhere.
func sharedAt(a, b reflect.Value, path string) string {
	switch a.Type() {
	case reflect.TypeFor[time.Time](), reflect.TypeFor[decimal.Decimal]():
		return "" // changed only by replacing them
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return sharedAt(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if p := sharedAt(a.Index(i), b.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				if p := sharedAt(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

// The copies of captures and refunds made without reflection are the
// reflected ones, and share nothing with what they copy, with every field
// of both types set.
func TestFastCopiesAreTheReflectedOnes(t *testing.T) {
	for _, typ := range []reflect.Type{capturesType, refundsType} {
		in := reflect.New(typ).Elem()
		fill(in, 3)
		fast, ok, handled := fastCopy(in)
		if !ok || !handled {
			t.Fatalf("%s: not copied", typ)
		}
		useFastCopy = false
		slow, ok := decodedCopy(in)
		useFastCopy = true
		if !ok {
			t.Fatalf("%s: not copied by reflection", typ)
		}
		if path, ok := alike(fast, slow, typ.String()); !ok {
			t.Errorf("the fast copy differs from the reflected one at %s", path)
		}
		if path := sharedAt(fast, in, typ.String()); path != "" {
			t.Errorf("the fast copy shares %s with the original", path)
		}
	}
}

// The cache keeps to its bounds in entries and in bytes.
func TestRecordCacheBounds(t *testing.T) {
	var c recordCache
	rec := &Record{Payment: wire.Payment{ID: "p"}}
	for i := range 3 * maxCachedBytes / maxCachedDoc {
		c.put(fmt.Sprint("p", i), wroteRecord{recordState: recordState{rev: int64(i), size: maxCachedDoc}}, rec)
		if c.bytes > maxCachedBytes || len(c.m) > maxCachedRecords {
			t.Fatalf("after %d: %d bytes in %d entries", i+1, c.bytes, len(c.m))
		}
	}
	c.put("big", wroteRecord{recordState: recordState{rev: 1, size: maxCachedDoc + 1}}, rec)
	if _, kept := c.m["big"]; kept {
		t.Error("a doc over maxCachedDoc was kept")
	}
	for i := range 2 * maxCachedRecords {
		c.put(fmt.Sprint("q", i), wroteRecord{recordState: recordState{rev: int64(i), size: 2}}, rec)
	}
	if len(c.m) > maxCachedRecords {
		t.Errorf("%d entries", len(c.m))
	}
	sum := 0
	for _, e := range c.m {
		sum += e.size
	}
	if sum != c.bytes {
		t.Errorf("counted %d bytes, holds %d", c.bytes, sum)
	}
}

// After a move, the cache's copy shares what the move left as it found
// it and copies what it replaced or added, and is still what decoding
// the record's doc answers; appending to the copy's moves never writes
// where the record's are.
func TestCacheCopyAfterAMoveSharesWhatItFound(t *testing.T) {
	loaded := throughDoc(t, richRecord())
	found := *loaded
	// The move: a new order (not a change of the one found), a capture
	// appended, a new status.
	rec := loaded
	order := *rec.Payment.Order
	order.ReferenceID = "new-ref"
	rec.Payment.Order = &order
	at := time.Now() // with a monotonic reading, which decoding drops
	rec.Payment.Captures = append(rec.Payment.Captures, wire.Capture{ID: "c3", Amount: decimal.RequireFromString("0.01"), CreatedAt: &at})
	rec.Payment.Status = wire.StatusClosed

	got, ok := cacheCopyAfter(rec, &found)
	if !ok {
		t.Fatal("not cached")
	}
	if path, ok := alike(reflect.ValueOf(got).Elem(), reflect.ValueOf(throughDoc(t, rec)).Elem(), "record"); !ok {
		t.Fatalf("the copy differs from the decoding at %s", path)
	}
	if got.Payment.Buyer != rec.Payment.Buyer || got.Payment.BuyerHistory != rec.Payment.BuyerHistory {
		t.Error("what the move left as it found it was copied, not shared")
	}
	if got.Payment.Order == rec.Payment.Order || got.Payment.Captures[2].CreatedAt == rec.Payment.Captures[2].CreatedAt {
		t.Error("what the move replaced or added is shared")
	}
	if got.Payment.Captures[0].CreatedAt != rec.Payment.Captures[0].CreatedAt {
		t.Error("a capture the move found was copied again")
	}
	if cap(got.Payment.Captures) != len(got.Payment.Captures) {
		t.Errorf("the copy's captures have room to grow into (cap %d, len %d)", cap(got.Payment.Captures), len(got.Payment.Captures))
	}
	before := append([]wire.Capture(nil), rec.Payment.Captures[:cap(rec.Payment.Captures)]...)
	_ = append(got.Payment.Captures, wire.Capture{ID: "c4"})
	for i := range before {
		if rec.Payment.Captures[:cap(rec.Payment.Captures)][i].ID != before[i].ID {
			t.Fatal("appending to the copy's captures wrote into the record's")
		}
	}
}

// throughDoc answers what decoding rec's stored doc makes of it.
func throughDoc(t *testing.T, rec *Record) *Record {
	t.Helper()
	view, session, err := encodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeRecord(joinDoc(view, session), "id", rec.Payment.ID)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A capture changes only the payment's moves: the copy is the record as it
// is, with its moves copied from the new one on, and still what decoding
// the record's doc answers; so is the copy after a capture that closes the
// payment, which sets its session's closed_at too and is copied whole.
func TestCacheCopyAfterACaptureIsTheDecoding(t *testing.T) {
	for _, closes := range []bool{false, true} {
		loaded := throughDoc(t, richRecord())
		found := *loaded
		rec := loaded
		at := time.Now() // with a monotonic reading, which decoding drops
		rec.Payment.Captures = append(rec.Payment.Captures, wire.Capture{ID: "c3", Amount: decimal.RequireFromString("0.01"), CreatedAt: &at})
		if closes {
			rec.Payment.Status = wire.StatusClosed
			rec.ClosedAt = &at
		}
		rec.View = []byte("{}")
		if !samePaymentBesideMoves(&rec.Payment, &found.Payment) {
			t.Fatal("the capture is not what this test means")
		}
		got, ok := cacheCopyAfter(rec, &found)
		if !ok {
			t.Fatal("not cached")
		}
		if path, ok := alike(reflect.ValueOf(got).Elem(), reflect.ValueOf(throughDoc(t, rec)).Elem(), "record"); !ok {
			t.Fatalf("closes %v: the copy differs from the decoding at %s", closes, path)
		}
		if got.View != nil || got.Tx != nil {
			t.Error("the copy keeps the view or the transaction")
		}
		if got.Payment.Order != rec.Payment.Order || got.Payment.Captures[0].CreatedAt != rec.Payment.Captures[0].CreatedAt {
			t.Error("what the move found was copied again")
		}
		if got.Payment.Captures[2].CreatedAt == rec.Payment.Captures[2].CreatedAt {
			t.Error("the new capture's time is shared")
		}
		if cap(got.Payment.Captures) != len(got.Payment.Captures) {
			t.Errorf("the copy's captures have room to grow into (cap %d, len %d)", cap(got.Payment.Captures), len(got.Payment.Captures))
		}
	}
}

// A move that changes nothing (an idempotent repeat, a refusal) leaves the
// record in the cache as it found it, and answers the view stored.
func TestAMoveThatChangesNothingKeepsTheCache(t *testing.T) {
	st, id := openTestState(t)
	ctx := context.Background()
	added, err := st.Move(ctx, id, nil, func(r *Record, _ time.Time) (string, error) {
		r.Payment.Captures = append(r.Payment.Captures, wire.Capture{ID: "c1", ReferenceID: "ref-1", Amount: decimal.RequireFromString("1.00")})
		return "captured", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	stored := st.cache.m[id].rev
	for _, refuse := range []bool{false, true, false} {
		rec, err := st.Move(ctx, id, nil, func(r *Record, _ time.Time) (string, error) {
			if refuse {
				return "", errors.New("refused")
			}
			return "", nil // the capture is there already
		})
		if refuse {
			if err == nil {
				t.Fatal("the refusal was not answered")
			}
		} else if err != nil || string(rec.View) != string(added.View) {
			t.Fatalf("a repeat answers %s, %v; want the view stored, %s", rec.View, err, added.View)
		}
		e, ok := st.cache.m[id]
		if !ok || e.rev != stored || len(e.rec.Payment.Captures) != 1 {
			t.Fatalf("after a move that changed nothing the cache holds %+v (kept: %v)", e, ok)
		}
	}
}
