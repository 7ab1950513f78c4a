package webhook

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func deliver(r *Receiver, body, event, delivery string) int {
	req := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
	if event != "" {
		req.Header.Set(EventHeader, event)
	}
	if delivery != "" {
		req.Header.Set(DeliveryHeader, delivery)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w.Code
}

func TestReceiverMarksRepeatedDeliveries(t *testing.T) {
	var got []Notification
	r := &Receiver{OnNotification: func(n Notification) { got = append(got, n) }}
	body := `{"id":"p1","status":"authorized","amount":"1.00"}`
	for _, d := range []string{"d1", "d2", "d1", ""} {
		if code := deliver(r, body, "authorized", d); code != http.StatusOK {
			t.Fatalf("delivery %q answered %d", d, code)
		}
	}
	want := []struct {
		delivery string
		repeat   bool
	}{{"d1", false}, {"d2", false}, {"d1", true}, {"", false}}
	if len(got) != len(want) {
		t.Fatalf("got %d notifications, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Delivery != w.delivery || got[i].Repeat != w.repeat {
			t.Errorf("notification %d: delivery %q repeat %v, want %q %v", i, got[i].Delivery, got[i].Repeat, w.delivery, w.repeat)
		}
	}
}

func TestReceiverSkipAnswersAndPassesOver(t *testing.T) {
	var got []string
	r := &Receiver{Max: 1, FailFirst: 1,
		Skip:           func(n Notification) bool { return n.Event != "captured" },
		OnNotification: func(n Notification) { got = append(got, n.Event) }}
	body := `{"id":"p1","status":"authorized","amount":"1.00"}`
	// Skipped ones are answered 200 and neither failed on purpose nor counted.
	for _, ev := range []string{"authorized", "updated"} {
		if code := deliver(r, body, ev, ""); code != http.StatusOK {
			t.Fatalf("%s answered %d, want 200", ev, code)
		}
	}
	if code := deliver(r, body, "captured", ""); code != http.StatusInternalServerError {
		t.Fatalf("first captured answered %d, want 500 (--fail-first)", code)
	}
	if code := deliver(r, body, "captured", ""); code != http.StatusOK {
		t.Fatalf("second captured answered %d, want 200", code)
	}
	if len(got) != 1 || got[0] != "captured" || r.Skipped() != 2 || r.Count() != 1 {
		t.Fatalf("reported %v, skipped %d, counted %d; want [captured], 2, 1", got, r.Skipped(), r.Count())
	}
	select {
	case <-r.Done():
	default:
		t.Fatal("Done not closed after Max notifications")
	}
}
