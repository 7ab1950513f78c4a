package store

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/shopspring/decimal"
)

// The record cache. A move reads its payment's stored doc and decodes it;
// decoding is the costliest step of a move (a payment's captures and
// refunds are all in its doc). The state keeps, per payment, the revision
// a move last wrote (the row's rev, which changes with every write of the
// payment, whoever makes it: see migrationPaymentParts) and the record it
// wrote, copied as decoding its doc would answer it (cacheCopy). The next
// move of the payment reads the stored rev, in its own transaction, and
// uses the copy only when it is the same: whatever else changed the
// payment (another process, a move rolled back, a reset and a new payment
// of the same id) leaves another rev, and the move reads the doc and
// decodes it. A move takes its entry in the writer goroutine
// (groupcommit.go; the record is then the move's alone) and, once its
// group has committed, puts back a copy of the one it wrote, made in its
// own goroutine so that the writer does not wait for it. A put that comes
// late (after the payment's next move) leaves a rev the stored one does
// not match: a decode, never a stale record.
//
// A copy is what decoding would answer: times without their monotonic
// reading and in the location decoding would give them, empty slices and
// maps of omitempty fields nil, fields JSON skips zero, and Captures and
// Refunds never nil (DecodeRecord). Decimals are kept as they are: the
// same number, the same String, which is all the sandbox reads of them
// (never their exponent). A record holding what JSON would change (a
// string that is not UTF-8, a number that is not a float64 in an any, a
// type with its own encoding other than time and decimal) is not cached.
// In race builds (the tests' CI) every use of a copy is checked against a
// decode of the stored doc (reccache_verify_race.go).

// maxCachedRecords and maxCachedBytes (of the records' docs; a decoded
// record takes a few times its doc, and the view an entry keeps about as
// much as the doc again) bound the cache; a full cache forgets entries at
// random. A record whose doc is over maxCachedDoc is not kept.
const (
	maxCachedRecords = 4096
	maxCachedBytes   = 32 << 20
	maxCachedDoc     = maxCachedBytes / 16
)

type cachedRecord struct {
	recordState // what the state holds of it
	rec         *Record
}

type recordCache struct {
	mu    sync.Mutex
	m     map[string]cachedRecord
	bytes int // of the docs kept
}

// take answers the cached record of id if it is stored as rev, with what
// is stored of it, and forgets it: the caller owns it.
func (c *recordCache) take(id string, rev int64) (*Record, recordState) {
	c.mu.Lock()
	e, ok := c.m[id]
	if ok {
		c.forget(id)
	}
	c.mu.Unlock()
	if !ok || e.rev != rev {
		return nil, recordState{}
	}
	return e.rec, e.recordState
}

func (c *recordCache) forget(id string) {
	if e, ok := c.m[id]; ok {
		c.bytes -= e.size
		delete(c.m, id)
	}
}

// put keeps a copy of rec, the record stored as w says, which a move left
// so. rec is only read.
func (c *recordCache) put(id string, w wroteRecord, rec *Record) {
	cp, ok := (*Record)(nil), false
	if w.size <= maxCachedDoc {
		cp, ok = cacheCopyAfter(rec, w.found)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forget(id)
	if !ok {
		return
	}
	if c.m == nil {
		c.m = make(map[string]cachedRecord)
	}
	for k := range c.m {
		if len(c.m) < maxCachedRecords && c.bytes+w.size <= maxCachedBytes {
			break
		}
		c.forget(k)
	}
	c.m[id] = cachedRecord{recordState: w.recordState, rec: cp}
	c.bytes += w.size
}

// cacheCopy answers a deep copy of rec as DecodeRecord would answer it
// from rec's encoding, or false when it cannot tell.
func cacheCopy(rec *Record) (*Record, bool) { return cacheCopyAfter(rec, nil) }

// cacheCopyAfter is cacheCopy of a record a move made of found, a shallow
// copy of the record it loaded (as decoding, or a copy, made it), or nil.
// The copy's fields are its own, but what the move left as it found it
// (a pointer, slice or map it did not replace, the captures and refunds
// it found) is shared with rec, as it is: a move never writes through one
// (MoveFunc), so neither side ever writes there, and copying them again
// would make every move cost as much as the payment's whole history. Its
// slices are cut to their length, so that appending to one never writes
// where the other's could.
//
// A move that changed nothing but the payment's moves, its status and
// is_test (a capture, a refund) leaves nothing else to copy: the record is
// copied as it is, but for its moves and the fields decoding leaves empty.
func cacheCopyAfter(rec, found *Record) (*Record, bool) {
	if found != nil && rec.Payment.Raw() == nil && utf8.ValidString(rec.Payment.Status) &&
		samePaymentBesideMoves(&rec.Payment, &found.Payment) && sameSession(&rec.Session, &found.Session) {
		cp := *rec
		cp.Tx, cp.View = nil, nil
		var ok bool
		if cp.Payment.Captures, ok = copyCaptures(rec.Payment.Captures, len(found.Payment.Captures)); !ok {
			return nil, false
		}
		if cp.Payment.Refunds, ok = copyRefunds(rec.Payment.Refunds, len(found.Payment.Refunds)); !ok {
			return nil, false
		}
		if cp.Payment.Captures == nil {
			cp.Payment.Captures = []wire.Capture{}
		}
		if cp.Payment.Refunds == nil {
			cp.Payment.Refunds = []wire.Refund{}
		}
		return &cp, true
	}
	rest := *rec // the record but its moves
	rest.Payment.Captures, rest.Payment.Refunds = nil, nil
	var v reflect.Value
	ok := false
	keepCaptures, keepRefunds := 0, 0
	if found == nil {
		v, ok = decodedCopy(reflect.ValueOf(&rest).Elem())
	} else {
		was := *found
		was.Payment.Captures, was.Payment.Refunds = nil, nil
		v, ok = sharingCopy(reflect.ValueOf(&rest).Elem(), reflect.ValueOf(&was).Elem())
		keepCaptures, keepRefunds = len(found.Payment.Captures), len(found.Payment.Refunds)
	}
	if !ok {
		return nil, false
	}
	cp := v.Addr().Interface().(*Record)
	if cp.Payment.Captures, ok = copyCaptures(rec.Payment.Captures, keepCaptures); !ok {
		return nil, false
	}
	if cp.Payment.Refunds, ok = copyRefunds(rec.Payment.Refunds, keepRefunds); !ok {
		return nil, false
	}
	if cp.Payment.Captures == nil {
		cp.Payment.Captures = []wire.Capture{}
	}
	if cp.Payment.Refunds == nil {
		cp.Payment.Refunds = []wire.Refund{}
	}
	return cp, true
}

// sharingCopy is decodedCopy of a struct, v, whose fields that are the
// same as in was (a pointer, slice or map to the same place, and for a
// slice of the same length) are shared rather than copied: was was made
// as decoding makes a value, and those fields were not replaced since. A
// struct field (the payment and the session of a record) is copied so in
// turn.
func sharingCopy(v, was reflect.Value) (reflect.Value, bool) {
	plan := structPlanOf(v.Type())
	out := reflect.New(v.Type()).Elem()
	if plan.refuse {
		return out, false
	}
	for _, f := range plan.fields {
		fv, wv := v.Field(f.index), was.Field(f.index)
		switch fv.Kind() {
		case reflect.Pointer, reflect.Map:
			if fv.Pointer() == wv.Pointer() {
				out.Field(f.index).Set(fv)
				continue
			}
		case reflect.Slice:
			if fv.Pointer() == wv.Pointer() && fv.Len() == wv.Len() {
				if !fv.IsNil() {
					fv = fv.Slice3(0, fv.Len(), fv.Len())
				}
				out.Field(f.index).Set(fv)
				continue
			}
		case reflect.String:
			if !utf8.ValidString(fv.String()) {
				return out, false
			}
			out.Field(f.index).Set(fv)
			continue
		case reflect.Bool, reflect.Int, reflect.Int64:
			out.Field(f.index).Set(fv)
			continue
		case reflect.Struct:
			if t := fv.Type(); t != timeType && t != decimalType && (t == paymentType || !encodesItself(t)) {
				c, ok := sharingCopy(fv, wv)
				if !ok {
					return out, false
				}
				out.Field(f.index).Set(c)
				continue
			}
		}
		if !setDecodedCopy(out, f, fv) {
			return out, false
		}
	}
	return out, true
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	decimalType = reflect.TypeFor[decimal.Decimal]()
	paymentType = reflect.TypeFor[wire.Payment]()
	anyType     = reflect.TypeFor[any]()
)

// ownEncoding tells whether t encodes itself (json or text); cached by
// type.
var ownEncoding sync.Map

func encodesItself(t reflect.Type) bool {
	if v, ok := ownEncoding.Load(t); ok {
		return v.(bool)
	}
	p := reflect.PointerTo(t) // its method set holds t's
	own := p.Implements(reflect.TypeFor[json.Marshaler]()) || p.Implements(reflect.TypeFor[json.Unmarshaler]()) ||
		p.Implements(reflect.TypeFor[encoding.TextMarshaler]()) || p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
	ownEncoding.Store(t, own)
	return own
}

// decodedCopy answers a settable copy of v as decoding v's encoding would
// make it (see the cache's comment), or false.
func decodedCopy(v reflect.Value) (reflect.Value, bool) {
	t := v.Type()
	out := reflect.New(t).Elem()
	switch {
	case t == timeType:
		tm := v.Interface().(time.Time)
		if tm.Location() == time.UTC {
			out.Set(reflect.ValueOf(tm.Round(0)))
			return out, true
		}
		b, err := tm.MarshalJSON()
		var back time.Time
		if err != nil || back.UnmarshalJSON(b) != nil {
			return out, false
		}
		out.Set(reflect.ValueOf(back))
		return out, true
	case t == decimalType:
		out.Set(v) // immutable: its operations answer new values
		return out, true
	case t.Kind() != reflect.Pointer && t != paymentType && encodesItself(t):
		return out, false
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return elemCopy(v, out)
	case reflect.Slice:
		return sliceCopy(v, out)
	case reflect.Map:
		return mapCopy(v, out)
	case reflect.Struct:
		return structCopy(v)
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			return out, false
		}
		out.Set(v)
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float64:
		out.Set(v)
	default:
		return out, false
	}
	return out, true
}

// elemCopy copies a pointer, or an any holding what JSON decodes, into
// out.
func elemCopy(v, out reflect.Value) (reflect.Value, bool) {
	if v.IsNil() {
		return out, true
	}
	if v.Kind() == reflect.Interface && (v.Type() != anyType || !jsonNative(v.Elem().Type())) {
		return out, false
	}
	e, ok := decodedCopy(v.Elem())
	if !ok {
		return out, false
	}
	if v.Kind() == reflect.Pointer {
		e = e.Addr()
	}
	out.Set(e)
	return out, true
}

func sliceCopy(v, out reflect.Value) (reflect.Value, bool) {
	if v.IsNil() {
		return out, true
	}
	if c, ok, handled := fastCopy(v); handled && useFastCopy {
		return c, ok
	}
	if v.Type().Elem().Kind() == reflect.Uint8 {
		return out, false // []byte encodes as base64; not in a record
	}
	out.Set(reflect.MakeSlice(v.Type(), v.Len(), v.Len()))
	for i := range v.Len() {
		e, ok := decodedCopy(v.Index(i))
		if !ok {
			return out, false
		}
		out.Index(i).Set(e)
	}
	return out, true
}

func mapCopy(v, out reflect.Value) (reflect.Value, bool) {
	if v.IsNil() {
		return out, true
	}
	if v.Type().Key().Kind() != reflect.String {
		return out, false
	}
	out.Set(reflect.MakeMapWithSize(v.Type(), v.Len()))
	for it := v.MapRange(); it.Next(); {
		if !utf8.ValidString(it.Key().String()) {
			return out, false
		}
		e, ok := decodedCopy(it.Value())
		if !ok {
			return out, false
		}
		out.SetMapIndex(it.Key(), e)
	}
	return out, true
}

// jsonNative tells whether a value of t in an any is what decoding into
// an any answers.
func jsonNative(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[bool](), reflect.TypeFor[float64](), reflect.TypeFor[string](),
		reflect.TypeFor[[]any](), reflect.TypeFor[map[string]any]():
		return true
	}
	return false
}

// structCopy copies a struct's exported fields that JSON encodes; the
// others stay zero, as decoding leaves them.
func structCopy(v reflect.Value) (reflect.Value, bool) {
	plan := structPlanOf(v.Type())
	out := reflect.New(v.Type()).Elem()
	if plan.refuse {
		return out, false // JSON would encode an embedded unexported struct's fields
	}
	for _, f := range plan.fields {
		if !setDecodedCopy(out, f, v.Field(f.index)) {
			return out, false
		}
	}
	return out, true
}

// setDecodedCopy sets field f of out to decodedCopy(fv), or leaves it
// zero when JSON omits it empty (decoding leaves it nil); false when
// the copy cannot tell.
func setDecodedCopy(out reflect.Value, f planField, fv reflect.Value) bool {
	c, ok := decodedCopy(fv)
	if !ok {
		return false
	}
	if !f.omitEmpty || !emptyCollection(c) {
		out.Field(f.index).Set(c)
	}
	return true
}

// structPlan is what structCopy needs of a struct type, read from its
// fields and tags once per type: the fields JSON encodes, and whether it
// has one the copy cannot tell.
type structPlan struct {
	fields []planField
	refuse bool
}

type planField struct {
	index     int
	omitEmpty bool
}

var structPlans sync.Map // reflect.Type -> *structPlan

func structPlanOf(t reflect.Type) *structPlan {
	if p, ok := structPlans.Load(t); ok {
		return p.(*structPlan)
	}
	plan := &structPlan{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && !f.IsExported() && hasExported(f.Type) {
			plan.refuse = true
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		plan.fields = append(plan.fields, planField{index: i, omitEmpty: strings.Contains(tag, ",omitempty")})
	}
	structPlans.Store(t, plan)
	return plan
}

func emptyCollection(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return false
}

// hasExported tells whether t (or what it points to) is a struct with an
// exported field.
func hasExported(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			return true
		}
	}
	return false
}

// The captures and refunds are most of a busy payment's record: they are
// copied without reflection (TestFastCopiesAreTheReflectedOnes holds the
// two ways equal, and fails when either type gains a field the fast way
// would share).
// useFastCopy is false only in the test that compares the two ways.
var useFastCopy = true

var (
	capturesType = reflect.TypeFor[[]wire.Capture]()
	refundsType  = reflect.TypeFor[[]wire.Refund]()
)

// fastCopy copies a slice of captures or refunds; handled is false for
// any other value.
func fastCopy(v reflect.Value) (out reflect.Value, ok, handled bool) {
	switch v.Type() {
	case capturesType:
		c, ok := copyCaptures(v.Interface().([]wire.Capture), 0)
		return reflect.ValueOf(c), ok, true
	case refundsType:
		r, ok := copyRefunds(v.Interface().([]wire.Refund), 0)
		return reflect.ValueOf(r), ok, true
	}
	return reflect.Value{}, false, false
}

// copyCaptures copies captures as decoding would make them; the first
// keep are copied as they are (cacheCopyAfter).
func copyCaptures(in []wire.Capture, keep int) ([]wire.Capture, bool) {
	if in == nil {
		return nil, true
	}
	out := make([]wire.Capture, len(in))
	keep = min(keep, len(in))
	copy(out, in[:keep])
	times := make([]time.Time, 0, len(in)-keep)
	for i, c := range in[keep:] {
		i += keep
		if !utf8.ValidString(c.ID) || !utf8.ValidString(c.ReferenceID) {
			return nil, false
		}
		var ok bool
		if c.CreatedAt, times, ok = copyTime(c.CreatedAt, times); !ok {
			return nil, false
		}
		c.TaxAmount, c.ShippingAmount, c.DiscountAmount = copyDecimal(c.TaxAmount), copyDecimal(c.ShippingAmount), copyDecimal(c.DiscountAmount)
		if c.Items, ok = copyItems(c.Items); !ok {
			return nil, false
		}
		out[i] = c
	}
	return out, true
}

// copyRefunds copies refunds as decoding would make them; the first keep
// are copied as they are (cacheCopyAfter).
func copyRefunds(in []wire.Refund, keep int) ([]wire.Refund, bool) {
	if in == nil {
		return nil, true
	}
	out := make([]wire.Refund, len(in))
	keep = min(keep, len(in))
	copy(out, in[:keep])
	times := make([]time.Time, 0, len(in)-keep)
	for i, r := range in[keep:] {
		i += keep
		if !utf8.ValidString(r.ID) || !utf8.ValidString(r.ReferenceID) || !utf8.ValidString(r.Reason) {
			return nil, false
		}
		var ok bool
		if r.CreatedAt, times, ok = copyTime(r.CreatedAt, times); !ok {
			return nil, false
		}
		if r.Items, ok = copyItems(r.Items); !ok {
			return nil, false
		}
		out[i] = r
	}
	return out, true
}

// copyTime copies *t as decoding would make it, into the next element of
// times (whose capacity the caller made enough for all).
func copyTime(t *time.Time, times []time.Time) (*time.Time, []time.Time, bool) {
	if t == nil {
		return nil, times, true
	}
	c := t.Round(0)
	if t.Location() != time.UTC {
		v, ok := decodedCopy(reflect.ValueOf(*t))
		if !ok {
			return nil, times, false
		}
		c = v.Interface().(time.Time)
	}
	times = append(times, c)
	return &times[len(times)-1], times, true
}

func copyDecimal(d *decimal.Decimal) *decimal.Decimal {
	if d == nil {
		return nil
	}
	c := *d
	return &c
}

// copyItems copies an omitempty list of items.
func copyItems(items []wire.OrderItem) ([]wire.OrderItem, bool) {
	if len(items) == 0 {
		return nil, true
	}
	v, ok := decodedCopy(reflect.ValueOf(items))
	if !ok {
		return nil, false
	}
	return v.Interface().([]wire.OrderItem), true
}
