package replay

import (
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// A receiver that stopped listening (listen --max, a closed pipe) heard
// none of the notifications the service sent after: the sandbox's
// notifications made after the recording's last are noted, not reported.
// One the receiver missed while it still heard later ones is reported.
func TestVerifyReceiverThatStoppedListening(t *testing.T) {
	s := newStudio(t, nil)
	s.call("POST", "/api/v1/webhooks", testKey, map[string]any{"url": s.receiver.URL + "/hooks", "is_test": true})
	_, c := s.call("POST", "/api/v2/checkout", testKey, checkout("300.00", "AED", "otp.success@tabby.ai", "+971500000001", "HEAR-1"))
	p := str(c, "payment", "id")
	s.customer("/_sandbox/payments/"+p+"/approve", nil)
	s.settle()
	s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": "300.00", "reference_id": "cap-1"})
	s.settle()
	s.call("POST", "/api/v2/payments/"+p+"/refunds", testKey, map[string]any{"amount": "20.00", "reference_id": "ref-1"})
	s.settle()
	rec := s.recording()
	var heard []int
	for i, x := range rec.Exchanges {
		if x.Kind == har.KindNotification {
			heard = append(heard, i)
		}
	}
	if len(heard) < 3 {
		t.Fatalf("%d notifications recorded, want one of the approval, the capture and the refund", len(heard))
	}
	if rep := verify(t, rec); len(rep.Differences) != 0 {
		t.Fatalf("the whole recording differs:%s", describe(rep.Differences))
	}
	without := func(i int) *Recording {
		r := copyRecording(rec)
		r.Exchanges = append(append([]*Exchange{}, r.Exchanges[:i]...), r.Exchanges[i+1:]...)
		return r
	}

	stopped := verify(t, without(heard[len(heard)-1]))
	if len(stopped.Differences) != 0 {
		t.Errorf("the receiver stopped before the last notification, yet:%s", describe(stopped.Differences))
	}
	noted := false
	for _, n := range stopped.Skipped {
		noted = noted || strings.Contains(n.Why, "stopped listening")
	}
	if !noted {
		t.Errorf("notes %v, want the notification the receiver no longer heard", stopped.Skipped)
	}

	missed := verify(t, without(heard[len(heard)-2]))
	if len(missed.Differences) != 1 || missed.Differences[0].Kind != DiffNotified {
		t.Errorf("a notification missed while the receiver heard later ones:%s\nwant it reported", describe(missed.Differences))
	}
}
