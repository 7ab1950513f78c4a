package sandbox

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// A notification committed parked (its URL to be judged after the commit)
// by a process killed before it judged it is settled by the next process
// that opens the state: sent when the URL passes its rules, failed with
// the rules' refusal when not.
func TestParkedNotificationsSettleOnOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	rcv := newHookReceiver(t, nil)
	first := newEnv(t, Options{StatePath: path, AllowLocalWebhooks: true})
	id := first.authorized("100.00") // before the webhook: nothing else is sent
	hook := first.registerPaymentHook(aeTest, rcv.srv.URL+"/payments", nil)
	first.sb.Close()

	park := func(deliveryID string) {
		t.Helper()
		db, err := store.OpenStore(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		now := time.Now().UnixNano()
		_, err = db.Exec(`INSERT INTO deliveries (id, kind, webhook_id, merchant_code, is_test, url, event, subject_id,
			payload, attempts, status, http_status, error, created_at, updated_at, next_at, tries)
			VALUES (?, 'payment', ?, 'ae-sandbox', 1, ?, 'captured', ?, ?, 0, 'parked', 0, '', ?, ?, ?, 0)`,
			deliveryID, hook, rcv.srv.URL+"/payments", id, []byte(`{"id":"`+id+`"}`), now, now, now)
		if err != nil {
			t.Fatal(err)
		}
	}
	status := func(e *env, deliveryID string) (string, string) {
		t.Helper()
		var list struct {
			Deliveries []outbox.Delivery `json:"deliveries"`
		}
		r := e.ctl("GET", "/_sandbox/deliveries?kind=payment&subject="+id, nil)
		if err := json.Unmarshal(r.body, &list); err != nil || r.status != 200 {
			t.Fatalf("deliveries: %d %s", r.status, r.body)
		}
		for _, d := range list.Deliveries {
			if d.ID == deliveryID {
				return d.Status, d.Error
			}
		}
		t.Fatalf("delivery %s is not listed", deliveryID)
		return "", ""
	}

	const sent, refused = "0b9e5c1e-8a4f-4f57-9d55-3c2b1a000001", "0b9e5c1e-8a4f-4f57-9d55-3c2b1a000002"
	park(sent)
	second := newEnv(t, Options{StatePath: path, AllowLocalWebhooks: true})
	got := rcv.wait(t, 1)
	if !strings.Contains(string(got[0].body), id) || got[0].header.Get("Bnpl-Sandbox-Delivery") != sent {
		t.Fatalf("delivered %s (delivery %s), want the parked notification %s", got[0].body, got[0].header.Get("Bnpl-Sandbox-Delivery"), sent)
	}
	second.sb.Close()

	park(refused)
	third := newEnv(t, Options{StatePath: path}) // loopback no longer admitted
	if s, msg := status(third, refused); s != "failed" || !strings.Contains(msg, "no longer passes the rules") {
		t.Errorf("parked delivery to a refused URL: %s %q, want failed by the rules", s, msg)
	}
}
