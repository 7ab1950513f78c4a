package sandbox

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/extras"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
)

func TestDeliveryAttemptsAndResend(t *testing.T) {
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true, WebhookRetryScale: 0.00001})
	rcv := newHookReceiver(t, func(n int, _ *http.Request) int {
		if n == 0 {
			return 500
		}
		return 200
	})
	e.registerPaymentHook(aeTest, rcv.srv.URL+"/hook", nil)
	id := e.authorized("10.00")
	got := rcv.wait(t, 2)
	if got[0].header.Get(outbox.EventHeader) != "authorized" || got[0].header.Get(outbox.DeliveryHeader) == "" {
		t.Fatalf("headers %v", got[0].header)
	}
	var list []outbox.DeliveryAttempt
	deadline := time.Now().Add(5 * time.Second)
	for {
		var err error
		list, err = e.sb.DeliveryAttempts(context.Background(), outbox.DeliveryFilter{PaymentID: id})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(list) != 2 || list[0].Attempt != 2 || list[0].Outcome != outbox.DeliveryDelivered || list[1].Attempt != 1 ||
		list[1].HTTPStatus != 500 || list[1].Error == "" || list[1].Event != "authorized" || list[1].PaymentID != id {
		t.Fatalf("attempts %+v", list)
	}
	failed, _ := e.sb.DeliveryAttempts(context.Background(), outbox.DeliveryFilter{Failed: true})
	if len(failed) != 1 || failed[0].Attempt != 1 {
		t.Fatalf("failed attempts %+v", failed)
	}

	r := e.ctl("POST", "/_sandbox/deliveries/"+list[0].DeliveryID+"/resend", nil)
	if r.status != 200 {
		t.Fatalf("resend: %d %s", r.status, r.body)
	}
	a := r.json(t)
	if a["attempt"].(float64) != 3 || a["resend"] != true || a["outcome"] != outbox.DeliveryDelivered {
		t.Fatalf("resend answered %s", r.body)
	}
	if n := len(rcv.wait(t, 3)); n != 3 {
		t.Fatalf("%d deliveries", n)
	}
	dels, _ := e.sb.Deliveries(context.Background(), "payment", id, 0)
	if len(dels) != 1 || dels[0].Attempts != 3 || dels[0].Status != outbox.DeliveryDelivered {
		t.Fatalf("delivery %+v", dels)
	}
	after := e.ctl("GET", "/_sandbox/delivery-attempts?after="+extras.Itoa(int(list[0].Seq)), nil).json(t)
	if l := after["attempts"].([]any); len(l) != 1 || after["cursor"].(float64) <= float64(list[0].Seq) {
		t.Fatalf("after the cursor: %v", after)
	}

	wantError(t, e.ctl("POST", "/_sandbox/deliveries/3fa85f64-5717-4562-b3fc-2c963f66afa6/resend", nil), 404, "not_found", "no such delivery")
	wantError(t, e.ctl("POST", "/_sandbox/deliveries/nope/resend", nil), 400, "bad_data", "invalid delivery id")
	wantError(t, e.ctl("GET", "/_sandbox/delivery-attempts?status=ok", nil), 400, "bad_data", "status must be failed or delivered")
	delivered := e.ctl("GET", "/_sandbox/delivery-attempts?status=delivered", nil).json(t)
	for _, a := range delivered["attempts"].([]any) {
		if a.(map[string]any)["outcome"] != outbox.DeliveryDelivered {
			t.Fatalf("status=delivered answered %v", a)
		}
	}
}
