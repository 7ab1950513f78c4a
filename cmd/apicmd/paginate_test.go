package apicmd

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// paymentsPage fakes the payments list: total payments, pages of limit.
func paymentsPage(total, offset, limit int) []byte {
	var items []string
	for i := offset; i < total && i < offset+limit; i++ {
		items = append(items, fmt.Sprintf(`{"id":"p%d"}`, i))
	}
	return []byte(fmt.Sprintf(`{"payments":[%s],"pagination":{"limit":%d,"offset":%d,"total_count":%d}}`,
		strings.Join(items, ","), limit, offset, total))
}

func TestPagerOffset(t *testing.T) {
	for _, total := range []int{0, 1, 20, 21, 45} {
		pg := newPager("/api/v2/payments", url.Values{"status": {"closed"}})
		var got []string
		query := url.Values{"status": {"closed"}}
		requests := 0
		for query != nil {
			requests++
			if requests > 10 {
				t.Fatalf("total %d: does not stop", total)
			}
			offset := 0
			fmt.Sscan(query.Get("offset"), &offset)
			if query.Get("status") != "closed" {
				t.Fatalf("the filter was lost: %v", query)
			}
			p, err := pg.read(paymentsPage(total, offset, 20))
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range p.items {
				got = append(got, string(it))
			}
			query = p.next
		}
		if len(got) != total {
			t.Errorf("total %d: got %d items", total, len(got))
		}
		if total > 0 && got[total-1] != fmt.Sprintf(`{"id":"p%d"}`, total-1) {
			t.Errorf("total %d: last item %s", total, got[total-1])
		}
		wantRequests := total/20 + 1
		if total > 0 && total%20 == 0 {
			wantRequests = total / 20
		}
		if requests != wantRequests {
			t.Errorf("total %d: %d requests, want %d", total, requests, wantRequests)
		}
	}
}

func TestPagerStartsAtGivenOffset(t *testing.T) {
	pg := newPager("/api/v2/payments", url.Values{"offset": {"40"}})
	p, err := pg.read(paymentsPage(45, 40, 20))
	if err != nil || len(p.items) != 5 || p.next != nil {
		t.Errorf("items %d, next %v, err %v", len(p.items), p.next, err)
	}
}

func TestPagerToken(t *testing.T) {
	pg := newPager("/api/v1/disputes", url.Values{"statuses": {"new"}})
	p, err := pg.read([]byte(`{"disputes":[{"id":"d1"},{"id":"d2"}],"next_page_token":"t2"}`))
	if err != nil || len(p.items) != 2 || p.next.Get("page_token") != "t2" || p.next.Get("statuses") != "new" {
		t.Fatalf("page 1: %+v %v", p, err)
	}
	p, err = pg.read([]byte(`{"disputes":[{"id":"d3"}],"next_page_token":""}`))
	if err != nil || len(p.items) != 1 || p.next != nil {
		t.Fatalf("page 2: %+v %v", p, err)
	}
	// A service repeating a token would loop forever.
	pg = newPager("/api/v1/disputes", nil)
	if _, err := pg.read([]byte(`{"disputes":[{}],"next_page_token":"same"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.read([]byte(`{"disputes":[{}],"next_page_token":"same"}`)); err == nil {
		t.Error("a repeated token: want an error")
	}
}

func TestPagerOtherShapes(t *testing.T) {
	pg := newPager("/api/v1/webhooks", nil)
	p, err := pg.read([]byte(`[{"id":"w1"},{"id":"w2"}]`))
	if err != nil || len(p.items) != 2 || p.next != nil {
		t.Errorf("array: %+v %v", p, err)
	}
	p, err = pg.read([]byte(`{"id":"x","status":"CLOSED"}`))
	if err != nil || len(p.items) != 1 || string(p.items[0]) != `{"id":"x","status":"CLOSED"}` || p.next != nil {
		t.Errorf("object: %+v %v", p, err)
	}
	p, err = newPager("/api/v2/payments", nil).read([]byte(`{"other":[1],"payments":[{"id":1}]}`))
	if err != nil || len(p.items) != 1 || string(p.items[0]) != `{"id":1}` {
		t.Errorf("named list: %+v %v", p, err)
	}
	if _, err := newPager("/x", nil).read([]byte(`{"a":[1],"b":[2]}`)); err == nil {
		t.Error("two lists, neither named: want an error")
	}
	if _, err := newPager("/x", nil).read([]byte(`not json`)); err == nil {
		t.Error("not JSON: want an error")
	}
}
