package bulk

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
)

func TestReadApplyRowsTakeTheirOpFromTheOpColumn(t *testing.T) {
	in := "op,payment_id,amount,reference_id,reason\n" +
		"capture," + pidA + ",100.00,C1,\n" +
		"Refund," + pidA + ",20.00,C1,damaged\n" + // a refund may reuse a capture's id
		"close," + pidA + ",,,\n" +
		"close," + pidA + ",,,\n" + // closed twice
		"refund," + pidB + ",5,,\n" +
		"refund," + pidB + ",5,,\n" + // identical, no reference_id
		"capture," + pidB + ",5,,why\n" +
		"send," + pidB + ",5,,\n"
	rows, invalid, err := ReadRows(strings.NewReader(in), "moves.csv", OpApply)
	if err != nil {
		t.Fatal(err)
	}
	var ops []Op
	for _, r := range rows {
		ops = append(ops, r.Op)
	}
	if got := strings.Join(opStrings(ops), ","); got != "capture,refund,close,refund" {
		t.Errorf("ops %v", ops)
	}
	want := []string{
		"line 5: payment_id: payment is already closed by line 4",
		"line 7: is the same as line 6",
		"line 8: reason: is only for refund",
		`line 9: op: "send" is not a move`,
	}
	if len(invalid) != len(want) {
		t.Fatalf("invalid %v", invalid)
	}
	for i, w := range want {
		if !strings.HasPrefix(invalid[i].String(), w) {
			t.Errorf("invalid[%d] = %q, want %q...", i, invalid[i], w)
		}
	}
	if invalid[3].Op != "send" || invalid[2].Op != OpCapture {
		t.Errorf("invalid rows keep their op as written: %q %q", invalid[3].Op, invalid[2].Op)
	}

	// A single-op run reads an op column naming its own op only.
	_, invalid, err = ReadRows(strings.NewReader(in), "moves.csv", OpCapture)
	if err != nil || len(invalid) == 0 || !strings.Contains(invalid[0].String(), "line 3: op: is Refund, and this command runs capture rows only") {
		t.Fatalf("capture of a mixed file: %v %v", invalid, err)
	}

	for _, c := range []struct{ in, want string }{
		{"payment_id,amount\n", "the header has no op column"},
		{"op,payment_id,note\n", `unknown column "note": the columns of apply are op, payment_id, amount, reference_id, tax_amount, shipping_amount, discount_amount, reason, currency (op is capture, refund or close; capture uses payment_id, amount, reference_id, tax_amount, shipping_amount, discount_amount, currency; refund uses payment_id, amount, reference_id, reason, currency; close uses payment_id, currency)`},
	} {
		if _, _, err := ReadRows(strings.NewReader(c.in), "x.csv", OpApply); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v", c.in, err)
		}
	}

	// JSON lines: the op is a key like the others.
	jl := `{"op":"close","payment_id":"` + pidA + `"}` + "\n" + `{"payment_id":"` + pidA + `","amount":"1"}` + "\n"
	rows, invalid, err = ReadRows(strings.NewReader(jl), "m.jsonl", OpApply)
	if err != nil || len(rows) != 1 || rows[0].Op != OpClose || len(invalid) != 1 || !strings.Contains(invalid[0].String(), "op: is required") {
		t.Fatalf("jsonl: %v %v %v", rows, invalid, err)
	}
}

func opStrings(ops []Op) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = string(o)
	}
	return out
}

// A capture of the whole remainder closes the payment, so a later refund
// of it goes and a later close is refused; rows of one payment run in file
// order whatever their op, and the plan says what the run does.
func TestApplyRunsEachPaymentsRowsInFileOrderWhateverTheirOp(t *testing.T) {
	f := newFake(t)
	p1 := f.add("AED", "1000.00", api.StatusAuthorized)
	p2 := f.add("AED", "500.00", api.StatusAuthorized)
	rows := []Row{
		{Line: 2, Op: OpCapture, PaymentID: p1, Amount: "300.00"},
		{Line: 3, Op: OpRefund, PaymentID: p1, Amount: "50.00"}, // still AUTHORIZED: refused
		{Line: 4, Op: OpClose, PaymentID: p1},
		{Line: 5, Op: OpRefund, PaymentID: p1, Amount: FullAmount}, // 300.00 after the close
		{Line: 6, Op: OpCapture, PaymentID: p2, Amount: FullAmount},
		{Line: 7, Op: OpRefund, PaymentID: p2, Amount: "100.00"},
		{Line: 8, Op: OpClose, PaymentID: p2}, // closed by the full capture: refused
	}
	plan, err := Plan(context.Background(), f.GetPayment, nil, OpApply, rows, 2, time.Now(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := plan.String(), "plan: 7 rows: 5 would go, 0 already made, 2 refused; would move 1200.00 AED (capture 800.00 AED; refund 400.00 AED)"; got != want {
		t.Errorf("plan %q, want %q", got, want)
	}
	if f.callsOf("capture") != nil || f.callsOf("refund") != nil {
		t.Fatal("the plan moved money")
	}

	o := testOptions(t, OpApply)
	sum, err := Run(context.Background(), f, rows, o)
	if exitCode(err) != 11 {
		t.Fatalf("err %v", err)
	}
	if got, want := sum.String(), "7 rows: 5 ok, 0 reconciled, 2 failed, 0 skipped, 0 not sent; moved 1200.00 AED (captured 800.00 AED; refunded 400.00 AED); failed 50.00 AED"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	var refused []string
	for _, r := range plan.Refused {
		refused = append(refused, r.String())
	}
	data, err := os.ReadFile(o.ReportPath)
	if err != nil {
		t.Fatal(err)
	}
	report := string(data)
	for _, line := range []string{
		"3,refund," + p1 + ",bnpl-",
		",50.00,failed,,,the payment is AUTHORIZED; only CLOSED payments can be refunded; nothing was sent,",
		"5,refund," + p1 + ",bnpl-",
		"8,close," + p2 + ",,,failed,,,the payment is CLOSED; only AUTHORIZED payments can be closed; nothing was sent,",
	} {
		if !strings.Contains(report, line) {
			t.Errorf("report lacks %q:\n%s", line, report)
		}
	}
	if !strings.Contains(strings.Join(refused, "\n"), "line 3: the payment is AUTHORIZED; only CLOSED payments can be refunded") ||
		!strings.Contains(strings.Join(refused, "\n"), "line 8: the payment is CLOSED; only AUTHORIZED payments can be closed") {
		t.Errorf("plan refused %v", refused)
	}
	a, b := f.payment(p1), f.payment(p2)
	if a.Status != api.StatusClosed || a.Captured().String() != "300" || a.Refunded().String() != "300" {
		t.Errorf("p1 %s captured %s refunded %s", a.Status, a.Captured(), a.Refunded())
	}
	if b.Captured().String() != "500" || b.Refunded().String() != "100" {
		t.Errorf("p2 captured %s refunded %s", b.Captured(), b.Refunded())
	}

	// A re-run finds every row settled; the journal keys of a capture row
	// are the same in an apply run and in a bulk capture.
	sum, _ = Run(context.Background(), f, rows, o)
	if sum.Earlier != 7 || len(sum.Moved) != 0 {
		t.Errorf("re-run %s", sum)
	}
	keysApply, _ := rowIdentity("", rows[:1])
	keysCapture, _ := rowIdentity("", withOp(OpCapture, []Row{{Line: 2, PaymentID: p1, Amount: "300.00"}}))
	if keysApply[0] != keysCapture[0] {
		t.Error("a capture row has another key in an apply run")
	}
}
