package replay

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Kinds of difference.
const (
	DiffStatus   = "status"   // another HTTP status
	DiffBody     = "body"     // a body that is not JSON differs, or one side is not JSON
	DiffMissing  = "missing"  // a field or element the recording has and the other side lacks
	DiffExtra    = "extra"    // a field or element the other side has and the recording lacks
	DiffType     = "type"     // another JSON type (string, number, null, ...)
	DiffValue    = "value"    // another value where values are compared (enumerations, messages, echoes)
	DiffAmount   = "amount"   // another amount, compared as the string it is
	DiffShape    = "shape"    // another kind of value where only shapes are compared (ids, times, URLs, tokens)
	DiffID       = "id"       // not the id the earlier answers mapped this one to
	DiffLength   = "length"   // another number of elements
	DiffOrder    = "order"    // the same elements in another order
	DiffRequest  = "request"  // replay: a recorded request the app did not make, or one it made that was not recorded
	DiffNotified = "notified" // a notification the recording holds and the sandbox did not send, or the reverse
)

// Difference is one place where the replayed side answered otherwise than
// the recording.
type Difference struct {
	N      int    `json:"request"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// Field is a JSON path into the body ($.payment.status), or "status"
	// for the HTTP status.
	Field string `json:"field"`
	Kind  string `json:"kind"`
	// Want is the recording's value, Got the other side's, each shown as
	// JSON (strings quoted), or "(absent)".
	Want string `json:"service"`
	Got  string `json:"sandbox"`
	// Side is "answer" (the sandbox answered otherwise), "request" (in
	// replay: the app asked otherwise), or "notification".
	Side string `json:"side"`
	// Ignored is the reason an --ignore rule gives, when one matches.
	Ignored string `json:"ignored_because,omitempty"`
}

// MarshalJSON names the two values by what they are: the service's and
// the sandbox's in an answer or a notification, the recorded request's
// and the app's in a request.
func (d Difference) MarshalJSON() ([]byte, error) {
	type plain Difference
	if d.Side != "request" {
		return json.Marshal(plain(d))
	}
	return json.Marshal(struct {
		plain
		Want string `json:"service,omitempty"`
		Got  string `json:"sandbox,omitempty"`
		Rec  string `json:"recorded"`
		App  string `json:"app"`
	}{plain: plain(d), Rec: d.Want, App: d.Got})
}

// Absent shows a value one side lacks.
const Absent = "(absent)"

// comparer compares one recorded document with the replayed one, learning
// ids as it goes.
type comparer struct {
	ids   *IDMap
	base  Difference
	diffs []Difference
	// lists are the JSON paths of arrays that list what the account holds:
	// elements the recording never made are left out on both sides.
	lists map[string]bool
	// follow makes a value the app sent otherwise than the recording
	// stand for the recorded one from then on (replay: the app's own order
	// number is then expected back wherever the service echoed the
	// recorded one).
	follow bool
}

func (c *comparer) add(field, kind, want, got string) {
	d := c.base
	d.Field, d.Kind, d.Want, d.Got = field, kind, want, got
	c.diffs = append(c.diffs, d)
}

// exactKeys hold enumerations, messages and what the app sent echoed
// back: they are compared as values.
var exactKeys = map[string]bool{
	"status": true, "errorType": true, "error": true, "field": true, "code": true, "message": true,
	"currency": true, "lang": true, "type": true, "reason": true, "rejection_reason": true,
	"reference_id": true, "order_number": true, "created_by": true, "title": true, "description": true,
	"category": true, "comment": true, "content": true, "url": true, "event": true, "payment_method": true,
	"gender": true, "size_type": true, "size": true, "color": true, "brand": true, "product_material": true,
	"barcode": true, "ppn": true, "seller": true, "email": true, "phone": true, "name": true,
	"address": true, "city": true, "zip": true, "content_type": true, "body": true,
}

// exactNumbers are numbers the app sent, echoed back.
var exactNumbers = map[string]bool{
	"limit": true, "offset": true, "quantity": true, "loyalty_level": true, "wishlist_count": true,
	"ordered": true, "captured": true, "shipped": true, "refunded": true,
}

// shapeOnlyUnder are objects whose strings are the account's own (the
// merchant's name, address and logo): compared by shape only.
var shapeOnlyUnder = []string{".merchant.", ".header."}

func isAmountKey(key string) bool {
	return key == "amount" || strings.HasSuffix(key, "_amount") || strings.HasSuffix(key, "price")
}

func isIDKey(key string) bool {
	return key == "id" || key == "token" || key == "attachments" ||
		(strings.HasSuffix(key, "_id") && key != "reference_id") || strings.HasSuffix(key, "_ids")
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// show is a value as a difference shows it: JSON, cut at 80 characters;
// objects and arrays by their size.
func show(v any) string {
	switch t := v.(type) {
	case map[string]any:
		return fmt.Sprintf("{%d %s}", len(t), plural(len(t), "field"))
	case []any:
		return fmt.Sprintf("[%d %s]", len(t), plural(len(t), "item"))
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len([]rune(s)) > 80 {
		s = string([]rune(s)[:79]) + "…"
	}
	return s
}

// value compares want (the recording's) with got at path; key is the
// member name holding them (an array's for its elements).
func (c *comparer) value(path, key string, want, got any) {
	if tw, tg := typeName(want), typeName(got); tw != tg {
		c.add(path, DiffType, show(want)+" ("+tw+")", show(got)+" ("+tg+")")
		return
	}
	switch w := want.(type) {
	case map[string]any:
		c.object(path, w, got.(map[string]any))
	case []any:
		c.array(path, key, w, got.([]any))
	case string:
		c.str(path, key, w, got.(string))
	case json.Number:
		if (exactNumbers[key] || echoed(path)) && w != got.(json.Number) {
			c.add(path, DiffValue, show(w), show(got))
		}
	case bool:
		if w != got.(bool) {
			c.add(path, DiffValue, show(w), show(got))
		}
	}
}

func (c *comparer) object(path string, want, got map[string]any) {
	keys := make([]string, 0, len(want)+len(got))
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		w, inWant := want[k]
		g, inGot := got[k]
		at := path + "." + k
		switch {
		case !inGot:
			c.add(at, DiffMissing, show(w), Absent)
		case !inWant:
			c.add(at, DiffExtra, Absent, show(g))
		default:
			c.value(at, k, w, g)
		}
	}
}

func (c *comparer) str(path, key, want, got string) {
	if mapped, ok := c.ids.Get(want); ok {
		if got != mapped {
			c.add(path, DiffID, show(want), show(got))
		}
		return
	}
	if (isIDKey(key) && !echoed(path)) || isUUID(want) {
		if class(want) != class(got) {
			c.add(path, DiffShape, show(want)+" ("+class(want)+")", show(got)+" ("+class(got)+")")
			return
		}
		if want != got && isUUID(want) {
			c.ids.Set(want, got)
		}
		return
	}
	shapeOnly := false
	for _, under := range shapeOnlyUnder {
		if strings.Contains(path+".", under) {
			shapeOnly = true
		}
	}
	switch {
	case key == "merchant_code":
		// Mapped when the request named it; the sandbox's merchant
		// otherwise.
	case isAmountKey(key) && !shapeOnly:
		if want != got {
			c.add(path, DiffAmount, show(want), show(got))
		}
	case echoed(path) || (exactKeys[key] && !shapeOnly && (class(want) != "url" || echoedURL(path, key))):
		if c.ids.Inside(want) != got {
			if c.follow && volatileAlike(want, got) {
				c.ids.Set(want, got)
				return
			}
			c.add(path, DiffValue, show(want), show(got))
			if c.follow {
				c.ids.Set(want, got)
			}
		}
	default:
		if class(want) != class(got) {
			c.add(path, DiffShape, show(want)+" ("+class(want)+")", show(got)+" ("+class(got)+")")
		}
	}
}

// echoed tells a value under an object the app made and the service
// keeps as it was sent (a payment's meta): compared by value, whatever
// its key.
func echoed(path string) bool {
	return strings.Contains(path+".", ".meta.") || strings.Contains(path+"[", ".meta[")
}

// echoedURL tells a URL the app sent and the service echoes (a webhook's
// url, a checkout's merchant_urls), compared by value; the service's own
// URLs (web_url, a logo) are compared by shape.
func echoedURL(path, key string) bool {
	return key == "url" || strings.Contains(path, ".merchant_urls.")
}

// volatileAlike tells a value the app makes anew on each run (an order
// number with a timestamp or a counter in it) from one it changed: both
// hold at least six digits, and are the same once each run of digits is
// taken as one.
func volatileAlike(want, got string) bool {
	digits := func(s string) int {
		n := 0
		for _, r := range s {
			if r >= '0' && r <= '9' {
				n++
			}
		}
		return n
	}
	if digits(want) < 6 || digits(got) < 6 {
		return false
	}
	return skeleton(want) == skeleton(got)
}

func skeleton(s string) string {
	var b strings.Builder
	inDigits := false
	for _, r := range s {
		d := r >= '0' && r <= '9'
		if d && inDigits {
			continue
		}
		if d {
			b.WriteByte('0')
		} else {
			b.WriteRune(r)
		}
		inDigits = d
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// class is the shape of a string, for values compared by shape only.
func class(s string) string {
	switch {
	case s == "":
		return "empty"
	case isUUID(s):
		return "uuid"
	case strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://"):
		return "url"
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if strings.HasSuffix(s, "Z") {
			return "time (UTC)"
		}
		return "time (offset)"
	}
	if _, err := time.Parse("2006-01-02", s); err == nil {
		return "date"
	}
	return "text"
}
