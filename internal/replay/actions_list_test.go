package replay

import "testing"

// A payment approved by the customer, then left out of the list of new
// payments, is approved before the list is replayed, though no answer
// before it shows the approval (the list of authorized payments after it
// does).
func TestVerifyApprovalSeenFirstInAListLeavingItOut(t *testing.T) {
	s := newStudio(t, nil)
	_, a := s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "LEFT-1"))
	s.call("POST", "/api/v2/checkout", testKey, checkout("50.00", "AED", "otp.success@tabby.ai", "+971500000001", "LEFT-2"))
	s.customer("/_sandbox/payments/"+str(a, "payment", "id")+"/approve", nil)
	s.call("GET", "/api/v2/payments?limit=20&status=new", testKey, nil)
	s.call("GET", "/api/v2/payments?limit=20&status=authorized", testKey, nil)
	rep := verify(t, s.recording())
	if len(rep.Differences) != 0 || len(rep.Actions) != 1 || rep.Actions[0].Before != 3 || rep.Actions[0].Action != "approve" {
		t.Fatalf("actions %+v, differences:%s\nwant the approval played before the list of new payments", rep.Actions, describe(rep.Differences))
	}
}

// A refund a dispute's resolution made, read in the payment before the
// dispute itself is seen (support refunded it between two reads): the
// dispute is opened and refunded before that read.
func TestVerifyDisputeRefundReadBeforeTheDispute(t *testing.T) {
	s := newStudio(t, nil)
	_, c := s.call("POST", "/api/v2/checkout", liveKey, checkout("300.00", "AED", "otp.success@tabby.ai", "+971500000001", "DREF-1"))
	p := str(c, "payment", "id")
	s.customer("/_sandbox/payments/"+p+"/approve", nil)
	s.call("POST", "/api/v2/payments/"+p+"/captures", liveKey, map[string]any{"amount": "300.00", "reference_id": "cap-1"})
	d := s.customer("/_sandbox/payments/"+p+"/dispute", map[string]any{"reason": "product_issue", "amount": "100.00"})
	s.customer("/_sandbox/disputes/"+str(d, "id")+"/resolve", map[string]any{"status": "refunded"})
	_, read := s.call("GET", "/api/v2/payments/"+p, liveKey, nil)
	if refunds, _ := read["refunds"].([]any); len(refunds) != 1 {
		t.Fatalf("the payment read after the dispute was refunded: %v", read)
	}
	s.call("GET", "/api/v1/disputes", liveKey, nil)
	rep := verify(t, s.recording())
	if len(rep.Differences) != 0 {
		t.Fatalf("actions %+v, differences:%s\nwant the dispute refunded before the payment was read", rep.Actions, describe(rep.Differences))
	}
}
