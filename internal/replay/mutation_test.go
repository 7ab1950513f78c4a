package replay

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// mutation is one change made to one recorded answer.
type mutation struct {
	n     int    // the exchange changed
	field string // where verify must report it
	what  string
	apply func(x *Exchange)
}

// recordMutable records a flow whose answers hold every kind of value
// verify compares: statuses and errors, enumerations, amounts, echoes of
// what the app sent (order numbers, descriptions, meta, URLs), ids, times,
// and arrays whose order the service keeps (captures, refunds).
func recordMutable(t *testing.T) *Recording {
	s := newStudio(t, nil)
	s.call("POST", "/api/v1/webhooks", testKey, map[string]any{"url": s.receiver.URL + "/hooks", "is_test": true})
	body := checkout("300.00", "AED", "otp.success@tabby.ai", "+971500000001", "MUT-1")
	body["payment"].(map[string]any)["meta"] = map[string]any{"order_id": "#1001", "customer": "c-7"}
	_, c := s.call("POST", "/api/v2/checkout", testKey, body)
	p := str(c, "payment", "id")
	s.customer("/_sandbox/payments/"+p+"/approve", nil)
	s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": "100.00", "reference_id": "cap-1"})
	s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": "50.00", "reference_id": "cap-2"})
	s.call("POST", "/api/v2/payments/"+p+"/refunds", testKey, map[string]any{"amount": "20.00", "reference_id": "ref-1"})
	s.call("POST", "/api/v2/payments/"+p+"/refunds", testKey, map[string]any{"amount": "10.00", "reference_id": "ref-2"})
	s.call("GET", "/api/v2/payments/"+p, testKey, nil)
	s.call("POST", "/api/v1/webhooks", testKey, map[string]any{"url": "https://shop.example-store.com/hooks", "is_test": true})
	s.call("GET", "/api/v2/payments/"+p, "sk_test_unknown_key_0000", nil)
	s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": "999.00"})
	s.settle()
	return s.recording()
}

// leaves lists the JSON paths of a document's values, as verify names
// them, with the member name holding each.
func leaves(path, key string, v any, visit func(path, key string, v any)) {
	visit(path, key, v)
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			leaves(path+"."+k, k, child, visit)
		}
	case []any:
		for i, child := range t {
			leaves(fmt.Sprintf("%s[%d]", path, i), key, child, visit)
		}
	}
}

// edit changes the recorded answer (a notification's body) at path with
// change.
func edit(x *Exchange, path string, change func(any) any) {
	if x.Kind == har.KindNotification {
		doc, _ := decode(x.body())
		doc = editAt(doc, strings.TrimPrefix(path, "$"), change)
		x.Body, _ = json.Marshal(doc)
		return
	}
	doc, _ := decode(x.answer())
	doc = editAt(doc, strings.TrimPrefix(path, "$"), change)
	x.Answer, _ = json.Marshal(doc)
}

func editAt(v any, rest string, change func(any) any) any {
	if rest == "" {
		return change(v)
	}
	switch t := v.(type) {
	case map[string]any:
		k := strings.TrimPrefix(rest, ".")
		end := strings.IndexAny(k, ".[")
		next := ""
		if end >= 0 {
			k, next = k[:end], k[end:]
		}
		if next == "" && isDeletion(change) {
			delete(t, k)
			return t
		}
		t[k] = editAt(t[k], next, change)
	case []any:
		close := strings.IndexByte(rest, ']')
		var i int
		fmt.Sscanf(rest[1:close], "%d", &i)
		t[i] = editAt(t[i], rest[close+1:], change)
	}
	return v
}

type deletion struct{}

var deleted any = deletion{}

func isDeletion(change func(any) any) bool {
	defer func() { _ = recover() }()
	_, ok := change(nil).(deletion)
	return ok
}

// mutations are the changes to make: for each compared value, another
// value of its kind, another type, and its absence; for each array of
// two or more, the reverse order; for each exchange, another status, a
// changed message and another Content-Type.
func mutations(rec *Recording) []mutation {
	var out []mutation
	for _, x := range rec.Exchanges {
		n := x.N
		doc, ok := decode(x.answer())
		switch {
		case x.Kind == har.KindNotification:
			doc, ok = decode(x.body())
		case x.IsService():
			out = append(out, mutation{n, "status", "status", func(x *Exchange) { x.Status = 418 }})
			out = append(out, mutation{n, "header Content-Type", "content type", func(x *Exchange) { x.RespType = "text/html; charset=utf-8" }})
		default:
			continue
		}
		if !ok {
			continue
		}
		leaves("$", "", doc, func(path, key string, v any) {
			if path == "$" {
				return
			}
			p := path
			out = append(out, mutation{n, p, "absent", func(x *Exchange) { edit(x, p, func(any) any { return deleted }) }})
			out = append(out, mutation{n, p, "type", func(x *Exchange) {
				edit(x, p, func(v any) any {
					if _, isBool := v.(bool); isBool {
						return "true"
					}
					return true
				})
			}})
			switch t := v.(type) {
			case string:
				if isIDKey(key) || isUUID(t) {
					out = append(out, mutation{n, p, "shape", func(x *Exchange) { edit(x, p, func(any) any { return "not-an-id" }) }})
					return
				}
				if class(t) != "text" && class(t) != "url" && class(t) != "empty" {
					out = append(out, mutation{n, p, "shape", func(x *Exchange) { edit(x, p, func(any) any { return "someday" }) }})
					return
				}
				if compared(p, key, t) {
					out = append(out, mutation{n, p, "value", func(x *Exchange) { edit(x, p, func(any) any { return t + "-changed" }) }})
				}
			case bool:
				out = append(out, mutation{n, p, "value", func(x *Exchange) { edit(x, p, func(any) any { return !t }) }})
			case []any:
				if len(t) >= 2 && (orderedArrays[key] || lists("GET", x.Path)[p] || !hasIDs(t)) {
					out = append(out, mutation{n, p, "order", func(x *Exchange) {
						edit(x, p, func(v any) any {
							a := append([]any{}, v.([]any)...)
							for i, j := 0, len(a)-1; i < j; i, j = i+1, j-1 {
								a[i], a[j] = a[j], a[i]
							}
							return a
						})
					}})
				}
			}
		})
	}
	return out
}

func hasIDs(a []any) bool {
	for _, v := range a {
		if _, ok := elementID(v); ok {
			return true
		}
	}
	return false
}

// compared tells a text verify compares by value (others are the
// account's own, such as the merchant's name, compared by shape).
func compared(path, key, v string) bool {
	c := &comparer{ids: NewIDMap()}
	c.str(path, key, v, v+"-changed")
	return len(c.diffs) > 0
}

// Each mutation of a recording is reported at its exchange and at its
// path (or below it), and nothing is reported elsewhere.
func TestVerifyReportsEachMutationWhereItWasMade(t *testing.T) {
	rec := recordMutable(t)
	if rep := verify(t, rec); len(rep.Differences) != 0 {
		t.Fatalf("the unchanged recording differs:%s", describe(rep.Differences))
	}
	list := mutations(rec)
	if raceEnabled {
		// Every seventh change, so that each kind of change is still tried.
		var sample []mutation
		for i := 0; i < len(list); i += 7 {
			sample = append(sample, list[i])
		}
		list = sample
	}
	found, clean, cascades, moved, misplaced := 0, 0, 0, 0, 0
	for _, m := range list {
		changed := copyRecording(rec)
		for _, x := range changed.Exchanges {
			if x.N == m.n {
				m.apply(x)
			}
		}
		rep := verify(t, changed)
		at, elsewhere := false, false
		decides := decidesEvent(rec, m)
		for _, d := range rep.Differences {
			switch {
			case d.N == m.n && decides && d.Field == "event":
				// What a notification says happened is its event: another
				// status is another event.
				at = true
			case d.N != m.n:
				elsewhere = true
			case m.field == "status" || d.Field == m.field || strings.HasPrefix(d.Field, m.field+".") || strings.HasPrefix(d.Field, m.field+"["):
				// A status comes with its errorType and message.
				at = true
			case strings.HasPrefix(m.field, d.Field+".") || strings.HasPrefix(m.field, d.Field+"["):
				// An element changed in its id, or gone, is said at the
				// element or the array.
				at = true
			default:
				elsewhere = true
			}
		}
		notification := isNotification(rec, m.n)
		switch {
		case at:
			found++
		case len(rep.Differences) > 0 && notification:
			// A notification changed in its subject's id, or in what
			// makes the verifier lapse an authorization, is reported at
			// the neighbour it then fails to pair with.
			misplaced++
			continue
		default:
			t.Errorf("#%d %s (%s): not reported at its place:%s", m.n, m.field, m.what, describe(rep.Differences))
		}
		switch {
		case !elsewhere:
			clean++
		case takesRecordAway(rec, m):
			// Later requests name a record the changed recording never
			// made (or made under another id): they differ too.
			cascades++
		case decides:
			// Notifications are paired by event: one of another event
			// leaves its neighbour unpaired too.
			moved++
		default:
			t.Errorf("#%d %s (%s): reported elsewhere too:%s", m.n, m.field, m.what, describe(rep.Differences))
		}
	}
	t.Logf("%d exchanges and %d notifications, %d mutations: %d reported at their exchange (or notification) and path, %d (of notifications) reported at another notification only; of those at their place, %d with nothing else reported, %d also at later requests naming the record the change took away, %d also at the notification the pairing by event then left alone",
		countService(rec), rec.Notifications(), len(list), found, misplaced, clean, cascades, moved)
}

func isNotification(rec *Recording, n int) bool {
	for _, x := range rec.Exchanges {
		if x.N == n {
			return x.Kind == har.KindNotification
		}
	}
	return false
}

// decidesEvent tells a change to what makes a notification's event (its
// status, captures, refunds, expiry).
func decidesEvent(rec *Recording, m mutation) bool {
	for _, x := range rec.Exchanges {
		if x.N == m.n && x.Kind == har.KindNotification {
			for _, f := range []string{"$.status", "$.captures", "$.refunds", "$.is_expired"} {
				if m.field == f || strings.HasPrefix(m.field, f+"[") || strings.HasPrefix(m.field, f+".") {
					return true
				}
			}
		}
	}
	return false
}

// takesRecordAway tells a change that makes the recording say a record
// was not made, or made under another id: the status or the id of a
// request that made one, an id (or an element holding one) changed or
// taken out.
func takesRecordAway(rec *Recording, m mutation) bool {
	var x *Exchange
	for _, e := range rec.Exchanges {
		if e.N == m.n {
			x = e
		}
	}
	makes := x.Method == "POST"
	last := m.field[strings.LastIndexAny(m.field, ".]")+1:]
	switch {
	case m.field == "status" && makes:
		return true
	case isIDKey(last) && m.what != "value":
		return true
	case m.what == "absent" || m.what == "type":
		return strings.Count(m.field, ".") <= 2 && !isIDKey(last) && idBelow(x, m.field)
	}
	return false
}

// idBelow tells whether the recorded answer holds an id at or below path.
func idBelow(x *Exchange, path string) bool {
	doc, _ := decode(x.answer())
	has := false
	leaves("$", "", doc, func(p, key string, v any) {
		if (p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[")) && isIDKey(key) && p != path {
			has = true
		}
	})
	return has
}

func countService(rec *Recording) int {
	n := 0
	for _, x := range rec.Exchanges {
		if x.IsService() {
			n++
		}
	}
	return n
}

func copyRecording(rec *Recording) *Recording {
	c := *rec
	c.Exchanges = make([]*Exchange, len(rec.Exchanges))
	for i, x := range rec.Exchanges {
		y := *x
		y.Answer = append([]byte(nil), x.answer()...)
		c.Exchanges[i] = &y
	}
	return &c
}
