package replay

import (
	"strings"
	"testing"
)

func compareJSON(t *testing.T, ids *IDMap, lists map[string]bool, want, got string) []Difference {
	t.Helper()
	w, ok := decode([]byte(want))
	g, ok2 := decode([]byte(got))
	if !ok || !ok2 {
		t.Fatalf("not JSON: %s / %s", want, got)
	}
	c := &comparer{ids: ids, lists: lists}
	c.value("$", "", w, g)
	return c.diffs
}

func fields(diffs []Difference) string {
	var out []string
	for _, d := range diffs {
		out = append(out, d.Field+" "+d.Kind)
	}
	return strings.Join(out, "; ")
}

func TestCompareRules(t *testing.T) {
	const p1, p2 = "3fa85f64-5717-4562-b3fc-2c963f66afa6", "7d9e2c1b-0a4f-4e8d-b6c3-5f1a2e3d4c5b"
	for _, c := range []struct {
		name, want, got, diffs string
	}{
		{"ids and times by shape", `{"id":"` + p1 + `","created_at":"2026-01-01T10:00:00Z","token":null}`,
			`{"id":"` + p2 + `","created_at":"2030-05-05T01:02:03.456Z","token":null}`, ""},
		{"a time in another form", `{"created_at":"2026-01-01T10:00:00Z"}`, `{"created_at":"2026-01-01"}`, "$.created_at shape"},
		{"urls by shape", `{"web_url":"https://checkout.example.com/x"}`, `{"web_url":"http://127.0.0.1:8700/_sandbox/hpp/y"}`, ""},
		{"amounts as strings", `{"amount":"100.00"}`, `{"amount":"100"}`, "$.amount amount"},
		{"enumerations", `{"status":"CLOSED","errorType":"bad_data"}`, `{"status":"AUTHORIZED","errorType":"bad_data"}`, "$.status value"},
		{"messages", `{"error":"already closed"}`, `{"error":"already Closed"}`, "$.error value"},
		{"missing and extra", `{"a":1,"b":"x"}`, `{"b":"x","c":true}`, "$.a missing; $.c extra"},
		{"types", `{"a":"1"}`, `{"a":1}`, "$.a type"},
		{"null is a type", `{"rejection_reason":null}`, `{"rejection_reason":"not_available"}`, "$.rejection_reason type"},
		{"counts of the account are not compared", `{"total_count":40}`, `{"total_count":2}`, ""},
		{"echoed numbers are", `{"limit":20}`, `{"limit":10}`, "$.limit value"},
		{"the merchant's own strings", `{"merchant":{"name":"Shop LLC","logo":"https://x/l.png"}}`, `{"merchant":{"name":"Sandbox Store","logo":"https://y/z.png"}}`, ""},
		{"array length", `{"captures":[{"amount":"1"},{"amount":"2"}]}`, `{"captures":[{"amount":"1"}]}`, "$.captures length"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fields(compareJSON(t, NewIDMap(), nil, c.want, c.got)); got != c.diffs {
				t.Errorf("got %q, want %q", got, c.diffs)
			}
		})
	}
}

func TestCompareLearnsAndHoldsIDs(t *testing.T) {
	const svc, sbx, other = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"
	ids := NewIDMap()
	if d := compareJSON(t, ids, nil, `{"id":"`+svc+`"}`, `{"id":"`+sbx+`"}`); len(d) != 0 {
		t.Fatalf("learning an id is no difference: %v", fields(d))
	}
	if got, _ := ids.Get(svc); got != sbx {
		t.Fatalf("mapped %s to %q", svc, got)
	}
	if d := compareJSON(t, ids, nil, `{"payment_id":"`+svc+`","reason":"dispute `+svc+` refunded"}`, `{"payment_id":"`+other+`","reason":"dispute `+sbx+` refunded"}`); fields(d) != "$.payment_id id" {
		t.Errorf("got %q, want the other id found and the id inside the text mapped", fields(d))
	}
}

// A list of the account leaves out what the replay did not make, on both
// sides, and compares the order of what it did.
func TestCompareLists(t *testing.T) {
	const a, b, old = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "99999999-9999-4999-8999-999999999999"
	const sa, sb, foreign = "aaaaaaaa-1111-4111-8111-111111111111", "bbbbbbbb-2222-4222-8222-222222222222", "cccccccc-9999-4999-8999-999999999999"
	ids := NewIDMap()
	ids.Set(a, sa)
	ids.Set(b, sb)
	lists := map[string]bool{"$.payments": true}
	want := `{"payments":[{"id":"` + b + `","status":"CLOSED"},{"id":"` + old + `","status":"CLOSED"},{"id":"` + a + `","status":"AUTHORIZED"}]}`
	if d := compareJSON(t, ids, lists, want, `{"payments":[{"id":"`+foreign+`"},{"id":"`+sb+`","status":"CLOSED"},{"id":"`+sa+`","status":"AUTHORIZED"}]}`); len(d) != 0 {
		t.Errorf("what neither replay made is compared: %s", fields(d))
	}
	if d := compareJSON(t, ids, lists, want, `{"payments":[{"id":"`+sa+`","status":"AUTHORIZED"},{"id":"`+sb+`","status":"CLOSED"}]}`); fields(d) != "$.payments order" {
		t.Errorf("got %q, want the order found", fields(d))
	}
	if d := compareJSON(t, ids, lists, want, `{"payments":[{"id":"`+sb+`","status":"CLOSED"}]}`); fields(d) != "$.payments[2] missing" {
		t.Errorf("got %q, want the payment the replay made found missing", fields(d))
	}
}

func TestIgnoreRules(t *testing.T) {
	rules, err := ParseIgnore("accepted.yaml", []byte(`
- field: $.payment.merchant.*
  path: /api/v2/checkout/{id}
  reason: the account's own merchant
- field: status
  method: POST
  kind: status
  reason: known
`))
	if err != nil {
		t.Fatal(err)
	}
	diffs := []Difference{
		{Method: "GET", Path: "/api/v2/checkout/3fa85f64-5717-4562-b3fc-2c963f66afa6", Field: "$.payment.merchant.name", Kind: DiffValue},
		{Method: "GET", Path: "/api/v2/checkout/3fa85f64-5717-4562-b3fc-2c963f66afa6", Field: "$.payment.status", Kind: DiffValue},
		{Method: "POST", Path: "/api/v2/payments/x/close", Field: "status", Kind: DiffStatus},
		{Method: "GET", Path: "/api/v2/payments", Field: "status", Kind: DiffStatus},
	}
	kept, ignored := Apply(rules, diffs)
	if len(kept) != 2 || len(ignored) != 2 || ignored[0].Ignored != "the account's own merchant" || kept[1].Method != "GET" {
		t.Errorf("kept %+v\nignored %+v", kept, ignored)
	}
	for _, bad := range []string{"- field: status\n", "- reason: why\n", "field: status\n", "- [1, 2]\n"} {
		if _, err := ParseIgnore("bad.yaml", []byte(bad)); err == nil {
			t.Errorf("%q was taken", bad)
		}
	}
	// A misspelt key would widen the rule, an unknown kind or side would
	// never match: each is refused at its line.
	for bad, want := range map[string]string{
		"- field: status\n  reason: r\n  metod: GET\n":    `bad.yaml:3: unknown key "metod"`,
		"- field: status\n  reason: r\n  kind: stauts\n":  `bad.yaml:3: unknown kind "stauts"`,
		"- field: status\n  side: answers\n  reason: r\n": `bad.yaml:2: unknown side "answers"`,
	} {
		_, err := ParseIgnore("bad.yaml", []byte(bad))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s", bad, err, want)
		}
	}
}

// Of records made at the same instant (checkouts sent at once) a list by
// created_at keeps no order: two swapped are no difference; swapped with
// one made at another instant, they are.
func TestCompareListsSameInstant(t *testing.T) {
	const a, b, c = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"
	const sa, sb, sc = "aaaaaaaa-1111-4111-8111-111111111111", "bbbbbbbb-2222-4222-8222-222222222222", "cccccccc-3333-4333-8333-333333333333"
	ids := NewIDMap()
	ids.Set(a, sa)
	ids.Set(b, sb)
	ids.Set(c, sc)
	lists := map[string]bool{"$.payments": true}
	at := func(id, when string) string { return `{"id":"` + id + `","created_at":"` + when + `"}` }
	want := `{"payments":[` + at(c, "2026-01-01T10:00:01Z") + `,` + at(a, "2026-01-01T10:00:00Z") + `,` + at(b, "2026-01-01T10:00:00Z") + `]}`
	if d := compareJSON(t, ids, lists, want, `{"payments":[`+at(sc, "2026-01-01T10:00:01Z")+`,`+at(sb, "2026-01-01T10:00:00Z")+`,`+at(sa, "2026-01-01T10:00:00Z")+`]}`); len(d) != 0 {
		t.Errorf("records of one instant swapped: %s", fields(d))
	}
	if d := compareJSON(t, ids, lists, want, `{"payments":[`+at(sa, "2026-01-01T10:00:00Z")+`,`+at(sc, "2026-01-01T10:00:01Z")+`,`+at(sb, "2026-01-01T10:00:00Z")+`]}`); fields(d) != "$.payments order" {
		t.Errorf("got %q, want the order found", fields(d))
	}
}
