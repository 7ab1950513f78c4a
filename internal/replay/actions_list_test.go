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
