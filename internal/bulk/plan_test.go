package bulk

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
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
	o.AllowRepeats = true
	if _, err := Run(context.Background(), f, rows[:1], o); err != nil {
		t.Fatal(err)
	}
	o.AllowRepeats = false
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

// A row like a settled move its payment holds (same op and amount, under
// a reference_id no row sends) is refused by the plan and the run unless
// AllowRepeats; with it the plan lists the row and the run sends it with
// one notice, both naming the move held.
func TestARepeatOfASettledMoveGoesOnlyWithAllowRepeatsAndIsNamed(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "100", api.StatusAuthorized)
	if _, err := f.Capture(context.Background(), id, api.CaptureRequest{Amount: decimal.RequireFromString("30"), ReferenceID: "SHIP-1"}); err != nil {
		t.Fatal(err)
	}
	rows := []Row{{Line: 2, Op: OpCapture, PaymentID: id, Amount: "30", ReferenceID: "SHIP-2"}}
	for _, allow := range []bool{false, true} {
		o := testOptions(t, OpCapture)
		o.AllowRepeats = allow
		var notices, warnings []string
		o.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
		o.Warn = func(msg string) { warnings = append(warnings, msg) }
		b, err := Prepare(rows, o)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := b.PlanPending(context.Background(), f.GetPayment, nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		held := "the payment already holds a capture of 30.00 AED under reference_id SHIP-1"
		if !allow {
			if plan.Go != 0 || plan.RepeatsRefused != 1 || len(plan.Refused) != 1 || !strings.Contains(plan.Refused[0].Message, "run again with --allow-repeats") {
				t.Fatalf("plan %+v; want the row refused, naming --allow-repeats", plan)
			}
		} else if plan.Go != 1 || plan.Repeats != 1 || len(plan.RepeatRows) != 1 || plan.RepeatRows[0].Line != 2 ||
			!strings.HasPrefix(plan.RepeatRows[0].Message, "would go as a new capture with --allow-repeats, although "+held) {
			t.Fatalf("plan %+v; want the row to go, listed with the move it repeats", plan)
		}
		sum, err := b.Run(context.Background(), f)
		for _, n := range notices {
			if strings.Contains(n, "goes as a new") {
				t.Errorf("notice %q: a repeat sent as new is a warning, said whatever --quiet says", n)
			}
		}
		want := 0
		if allow {
			want = 1
		}
		switch {
		case allow && (err != nil || sum.OK != 1 || len(f.callsOf("capture")) != 2):
			t.Fatalf("with AllowRepeats: %+v, %v, %d captures; want the row sent", sum, err, len(f.callsOf("capture")))
		case !allow && (exitCode(err) != 11 || sum.Failed != 1 || len(f.callsOf("capture")) != 1):
			t.Fatalf("without AllowRepeats: %+v, %v; want the row refused, nothing sent", sum, err)
		case !allow && !strings.Contains(err.(*RunError).Hint(), "goes with --allow-repeats"):
			t.Fatalf("hint %q does not name --allow-repeats", err.(*RunError).Hint())
		case len(warnings) != want || (allow && !strings.HasPrefix(warnings[0], "capture: line 2 goes as a new capture with --allow-repeats, although "+held)):
			t.Fatalf("warnings %q; want %d naming the move held", warnings, want)
		}
	}
}
