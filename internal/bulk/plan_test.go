package bulk

import (
	"context"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// disputedFake is the fake with disputes: the payments named are under
// an open dispute.
type disputedFake struct {
	*fakeClient
	open map[string]bool
}

func (d disputedFake) PaymentDisputes(_ context.Context, id string) ([]api.Dispute, error) {
	if d.open[id] {
		return []api.Dispute{{ID: "d-" + id[:8], PaymentID: id, Status: "new"}}, nil
	}
	return []api.Dispute{{ID: "old", PaymentID: id, Status: "declined"}}, nil
}

// refusedByLine is line → message of a plan's refusals, in the words a run
// reports them.
func refusedByLine(p PlanResult) map[int]string {
	out := map[int]string{}
	for _, r := range p.Refused {
		out[r.Line] = refusal(r.Field, r.Message)
	}
	return out
}

func TestRunRefusesWhatThePlanRefuses(t *testing.T) {
	for _, op := range []Op{OpCapture, OpRefund, OpClose} {
		t.Run(string(op), func(t *testing.T) {
			f := newFake(t)
			a := f.add("AED", "100", api.StatusAuthorized)
			b := f.add("AED", "100", api.StatusAuthorized)
			c := f.add("KWD", "100", api.StatusAuthorized)
			if op == OpRefund {
				for _, id := range []string{a, b, c} {
					if _, err := f.Capture(context.Background(), id, api.CaptureRequest{Amount: decimal.RequireFromString("100"), ReferenceID: "c"}); err != nil {
						t.Fatal(err)
					}
				}
			}
			if op == OpClose {
				f.mu.Lock()
				f.payments[b].status = api.StatusExpired
				f.mu.Unlock()
			}
			client := disputedFake{fakeClient: f, open: map[string]bool{c: true}}
			rows := []Row{
				{Line: 2, PaymentID: a, Amount: "60"},
				{Line: 3, PaymentID: a, Amount: "50"}, // more than the 40 left
				{Line: 4, PaymentID: a, Amount: FullAmount},
				{Line: 5, PaymentID: a, Amount: FullAmount}, // nothing left
				{Line: 6, PaymentID: b, Amount: "10", Currency: "SAR"},
				{Line: 7, PaymentID: c, Amount: "1.000"},
			}
			if op == OpClose {
				for i := range rows {
					rows[i].Amount = ""
				}
			}
			plan, err := Plan(context.Background(), f.GetPayment, client, op, rows, 2, time.Now(), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			o := testOptions(t, op)
			o.Concurrency = 2
			if _, err := Run(context.Background(), client, rows, o); exitCode(err) != 11 {
				t.Fatalf("run: %v", err)
			}
			failed := map[int]string{}
			for _, r := range readReport(t, o.ReportPath) {
				if r["outcome"] == string(OutcomeFailed) {
					line, _ := strconv.Atoi(r["line"])
					failed[line] = r["message"]
				}
			}
			want := refusedByLine(plan)
			if len(want) == 0 || len(failed) != len(want) {
				t.Fatalf("plan refuses %v, run failed %v", want, failed)
			}
			for line, msg := range want {
				if failed[line] != msg {
					t.Errorf("line %d: plan %q, run %q", line, msg, failed[line])
				}
			}
			if op == OpRefund {
				for _, cl := range f.callsOf("refund") {
					if cl.paymentID == c {
						t.Error("a refund was sent on a payment under an open dispute")
					}
				}
			}
			if plan.Go != len(rows)-len(plan.Refused) {
				t.Errorf("plan %s", plan)
			}
			lines := make([]int, 0, len(want))
			for l := range want {
				lines = append(lines, l)
			}
			sort.Ints(lines)
			t.Logf("%s refused lines %v", op, lines)
		})
	}
}

func TestPlanRefusesRefundsUnderAnOpenDispute(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "100", api.StatusAuthorized)
	if _, err := f.Capture(context.Background(), id, api.CaptureRequest{Amount: decimal.RequireFromString("100"), ReferenceID: "c"}); err != nil {
		t.Fatal(err)
	}
	rows := []Row{{Line: 2, PaymentID: id, Amount: "10"}}
	plan, err := Plan(context.Background(), f.GetPayment, disputedFake{fakeClient: f, open: map[string]bool{id: true}}, OpRefund, rows, 1, time.Now(), "", nil)
	if err != nil || len(plan.Refused) != 1 || plan.Refused[0].Message != "dispute d-"+id[:8]+" is open (status new): refunds wait until it is resolved" {
		t.Fatalf("plan %+v, err %v", plan, err)
	}
	// Without a dispute reader (a test payment has no disputes) it goes.
	plan, err = Plan(context.Background(), f.GetPayment, nil, OpRefund, rows, 1, time.Now(), "", nil)
	if err != nil || plan.Go != 1 {
		t.Fatalf("plan %+v, err %v", plan, err)
	}
}

// The plan of a resumed run counts the rows an earlier run settled among
// identical rows, so a later identical row is planned under the
// reference_id the run derives for it (a move still to make, not the
// settled one), and a settled row's move is accounted for: no repeat.
func TestPlanPendingCountsSettledRows(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "100", api.StatusAuthorized)
	rows := []Row{{Line: 2, Op: OpCapture, PaymentID: id, Amount: "50"}, {Line: 3, Op: OpCapture, PaymentID: id, Amount: "50"}}
	o := testOptions(t, OpCapture)
	o.AllowSettledRepeats = true
	if _, err := Run(context.Background(), f, rows[:1], o); err != nil {
		t.Fatal(err)
	}
	o.AllowSettledRepeats = false
	b, err := Prepare(rows, o)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	plan, err := b.PlanPending(context.Background(), f.GetPayment, nil, time.Now())
	if err != nil || plan.Total != 1 || plan.Go != 1 || plan.Made != 0 || plan.RefusedCount != 0 {
		t.Fatalf("plan %+v, err %v; want the second capture to go", plan, err)
	}
}
