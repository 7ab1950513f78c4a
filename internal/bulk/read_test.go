package bulk

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const (
	pidA = "6f1c2a9e-0b8d-4c3e-9a51-2d7f4e8b1c06"
	pidB = "0a7d4b1e-5c2f-4e8a-b3d9-71c6e2f05a48"
)

func TestReadCSV(t *testing.T) {
	in := "\xef\xbb\xbfPayment_ID, amount ,reference_id,tax_amount,shipping_amount,discount_amount\n" +
		pidA + ",100.00,order-1,5,10.5,0\n" +
		",,,,,\n" + // spreadsheets leave rows of empty cells
		"\n" +
		strings.ToUpper(pidB) + ",FULL,\"order,2\",,,\n" + // a quoted field
		pidA + ",0.125,,,,\n"
	rows, invalid, err := ReadRows(strings.NewReader(in), "orders.csv", OpCapture)
	if err != nil {
		t.Fatal(err)
	}
	if len(invalid) != 0 {
		t.Fatalf("invalid rows: %v", invalid)
	}
	want := []Row{
		{Line: 2, Op: OpCapture, PaymentID: pidA, Amount: "100.00", ReferenceID: "order-1", TaxAmount: "5", ShippingAmount: "10.5", DiscountAmount: "0"},
		{Line: 5, Op: OpCapture, PaymentID: pidB, Amount: FullAmount, ReferenceID: "order,2"},
		{Line: 6, Op: OpCapture, PaymentID: pidA, Amount: "0.125"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("rows\n got %+v\nwant %+v", rows, want)
	}
}

func TestReadJSONLines(t *testing.T) {
	in := `{"payment_id":"` + pidA + `","amount":10.10,"reason":"damaged"}` + "\n" +
		"   \n" +
		`{"payment_id":"` + pidB + `","amount":"full","reference_id":null}` // no final newline
	for _, name := range []string{"refunds.jsonl", "refunds.ndjson", "-", "refunds.txt"} {
		rows, invalid, err := ReadRows(strings.NewReader(in), name, OpRefund)
		if err != nil || len(invalid) != 0 {
			t.Fatalf("%s: err %v, invalid %v", name, err, invalid)
		}
		want := []Row{
			{Line: 1, Op: OpRefund, PaymentID: pidA, Amount: "10.10", Reason: "damaged"},
			{Line: 3, Op: OpRefund, PaymentID: pidB, Amount: FullAmount},
		}
		if !reflect.DeepEqual(rows, want) {
			t.Fatalf("%s: rows\n got %+v\nwant %+v", name, rows, want)
		}
	}
}

func TestReadSniffsCSVOnStdin(t *testing.T) {
	in := "payment_id\n" + pidA + "\n" + pidB + "\n"
	rows, invalid, err := ReadRows(strings.NewReader(in), "-", OpClose)
	if err != nil || len(invalid) != 0 {
		t.Fatalf("err %v, invalid %v", err, invalid)
	}
	if len(rows) != 2 || rows[1].Line != 3 || rows[1].PaymentID != pidB {
		t.Fatalf("rows %+v", rows)
	}
}

func TestReadExtensionWinsOverContent(t *testing.T) {
	// A .csv whose first cell starts with a brace is still CSV.
	_, _, err := ReadRows(strings.NewReader("{payment_id}\n"), "x.csv", OpClose)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Message, "unknown column") {
		t.Fatalf("err = %v, want an unknown column", err)
	}
}

func TestReadValidation(t *testing.T) {
	cases := []struct {
		name  string
		op    Op
		row   string // JSON object
		field string // "" when the row is fine
		msg   string
	}{
		{"missing payment id", OpCapture, `{"amount":"1"}`, "payment_id", "is required"},
		{"payment id not a uuid", OpCapture, `{"payment_id":"abc","amount":"1"}`, "payment_id", "not a payment id"},
		{"payment id in braces", OpCapture, `{"payment_id":"{` + pidA + `}","amount":"1"}`, "payment_id", "not a payment id"},
		{"missing amount", OpCapture, `{"payment_id":"` + pidA + `"}`, "amount", "is required"},
		{"zero amount", OpCapture, `{"payment_id":"` + pidA + `","amount":"0"}`, "amount", "greater than zero"},
		{"negative amount", OpRefund, `{"payment_id":"` + pidA + `","amount":"-5"}`, "amount", "greater than zero"},
		{"exponent", OpCapture, `{"payment_id":"` + pidA + `","amount":1e3}`, "amount", "exponent notation"},
		{"separator", OpCapture, `{"payment_id":"` + pidA + `","amount":"1,000"}`, "amount", "separator"},
		{"four places", OpCapture, `{"payment_id":"` + pidA + `","amount":"1.0001"}`, "amount", "no currency allows more than 3"},
		{"three places", OpCapture, `{"payment_id":"` + pidA + `","amount":"1.001"}`, "", ""},
		{"amount on close", OpClose, `{"payment_id":"` + pidA + `","amount":"1"}`, "amount", "close moves no amount"},
		{"reference on close", OpClose, `{"payment_id":"` + pidA + `","reference_id":"r"}`, "reference_id", "close sends no reference_id"},
		{"close", OpClose, `{"payment_id":"` + pidA + `"}`, "", ""},
		{"reason on capture", OpCapture, `{"payment_id":"` + pidA + `","amount":"1","reason":"x"}`, "reason", "only for refund"},
		{"tax on refund", OpRefund, `{"payment_id":"` + pidA + `","amount":"1","tax_amount":"1"}`, "tax_amount", "only for capture"},
		{"negative shipping", OpCapture, `{"payment_id":"` + pidA + `","amount":"1","shipping_amount":"-1"}`, "shipping_amount", "zero or more"},
		{"zero discount", OpCapture, `{"payment_id":"` + pidA + `","amount":"1","discount_amount":"0"}`, "", ""},
		{"unknown key", OpCapture, `{"payment_id":"` + pidA + `","amount":"1","amout":"1"}`, "amout", "not a known field"},
		{"boolean value", OpCapture, `{"payment_id":"` + pidA + `","amount":true}`, "amount", "must be a string"},
		{"not an object", OpCapture, `["` + pidA + `"]`, "", "not a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := `{"payment_id":"` + pidB + `","amount":"1"}` + "\n" + c.row + "\n"
			if c.op == OpClose {
				in = `{"payment_id":"` + pidB + `"}` + "\n" + c.row + "\n"
			}
			rows, invalid, err := ReadRows(strings.NewReader(in), "in.jsonl", c.op)
			if err != nil {
				t.Fatal(err)
			}
			if c.field == "" && c.msg == "" {
				if len(invalid) != 0 || len(rows) != 2 {
					t.Fatalf("want two valid rows, got %d and invalid %v", len(rows), invalid)
				}
				return
			}
			if len(rows) != 1 || len(invalid) != 1 {
				t.Fatalf("want one valid row and one problem, got %d rows and %v", len(rows), invalid)
			}
			e := invalid[0]
			if e.Line != 2 || e.Field != c.field || !strings.Contains(e.Message, c.msg) {
				t.Fatalf("got %+v, want line 2, field %q, message containing %q", e, c.field, c.msg)
			}
		})
	}
}

func TestReadReportsEveryProblemWithItsLine(t *testing.T) {
	in := "payment_id,amount,reference_id,reason\n" +
		pidA + ",10,r1,\n" +
		"nope,-1,,\n" + // two problems on one line
		pidA + ",12,r1,\n" + // reference_id reused on the same payment
		pidB + ",10\n" + // short row
		"\"unterminated,10,,\n"
	rows, invalid, err := ReadRows(strings.NewReader(in), "in.csv", OpRefund)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Line != 2 {
		t.Fatalf("rows %+v", rows)
	}
	var got []string
	for _, e := range invalid {
		got = append(got, e.String())
	}
	want := []string{
		`line 3: payment_id: "nope" is not a payment id`,
		`line 3: amount: "-1" must be greater than zero`,
		`line 4: reference_id: "r1" is also on line 2 for the same payment`,
		`line 5: has 2 fields, the header has 4`,
		`line 6: is not valid CSV`,
	}
	if len(got) != len(want) {
		t.Fatalf("problems\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
	if invalid[0].PaymentID != "nope" || invalid[3].PaymentID != pidB {
		t.Errorf("payment ids of invalid rows: %q %q", invalid[0].PaymentID, invalid[3].PaymentID)
	}
}

func TestReadRefusesClosingTwice(t *testing.T) {
	in := "payment_id\n" + pidA + "\n" + pidA + "\n"
	_, invalid, err := ReadRows(strings.NewReader(in), "in.csv", OpClose)
	if err != nil || len(invalid) != 1 || invalid[0].Line != 3 || !strings.Contains(invalid[0].Message, "line 2") {
		t.Fatalf("err %v, invalid %v", err, invalid)
	}
}

func TestReadInputErrors(t *testing.T) {
	cases := []struct {
		name, in, file string
		op             Op
		msg            string
	}{
		{"empty", "", "in.csv", OpCapture, "is empty"},
		{"empty stdin", "", "-", OpCapture, "is empty"},
		{"unknown column", "payment_id,amount,note\n", "in.csv", OpCapture, `unknown column "note"`},
		{"duplicate column", "payment_id,amount,Amount\n", "in.csv", OpCapture, "appears twice"},
		{"no header", pidA + ",10\n", "in.csv", OpCapture, "unknown column"},
		{"no payment id", "amount\n10\n", "in.csv", OpCapture, "no payment_id column"},
		{"no amount", "payment_id\n" + pidA + "\n", "in.csv", OpRefund, "no amount column"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadRows(strings.NewReader(c.in), c.file, c.op)
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v, want an InputError containing %q", err, c.msg)
			}
			if ie.ExitCode() != 2 {
				t.Errorf("exit code %d", ie.ExitCode())
			}
		})
	}
}

func TestReadRefusesAJSONRowWithADuplicateKey(t *testing.T) {
	in := `{"payment_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","amount":"10.00","amount":"1000.00"}` + "\n"
	rows, invalid, err := ReadRows(strings.NewReader(in), "rows.jsonl", OpCapture)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 || len(invalid) != 1 || invalid[0].Field != "amount" || !strings.Contains(invalid[0].Message, "appears twice") {
		t.Fatalf("rows %v invalid %v", rows, invalid)
	}
	for _, bad := range []string{`{"payment_id":"x"} {}`, `["a"]`, `{"payment_id":`, `{"a":1}}`} {
		_, invalid, err := ReadRows(strings.NewReader(bad+"\n"), "rows.jsonl", OpCapture)
		if err != nil || len(invalid) != 1 || invalid[0].Message != "is not a JSON object" {
			t.Errorf("%s: err %v invalid %v", bad, err, invalid)
		}
	}
}

func TestReadCapsTheLengthOfALine(t *testing.T) {
	for _, name := range []string{"rows.csv", "rows.jsonl"} {
		long := "payment_id,amount\n3fa85f64-5717-4562-b3fc-2c963f66afa6,10.00\n" + strings.Repeat("x", MaxLineBytes+1) + "\n"
		if name == "rows.jsonl" {
			long = `{"payment_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","amount":"1"}` + "\n" + `{"reason":"` + strings.Repeat("x", MaxLineBytes) + `"}` + "\n"
		}
		_, _, err := ReadRows(strings.NewReader(long), name, OpCapture)
		var ie *InputError
		if !errors.As(err, &ie) || ie.ExitCode() != 2 || !strings.Contains(ie.Error(), "longer than 64 KiB") {
			t.Fatalf("%s: err %v", name, err)
		}
		if ie.Line != 3 && !(name == "rows.jsonl" && ie.Line == 2) {
			t.Errorf("%s: line %d", name, ie.Line)
		}
	}
	// A line of exactly the cap is read.
	ok := "payment_id,amount,reason\n3fa85f64-5717-4562-b3fc-2c963f66afa6,10.00," + strings.Repeat("x", MaxLineBytes-len("3fa85f64-5717-4562-b3fc-2c963f66afa6,10.00,")) + "\n"
	if _, _, err := ReadRows(strings.NewReader(ok), "rows.csv", OpRefund); err != nil {
		t.Fatal(err)
	}
}

// reference_ids are per payment; identical rows without one are refused
// unless repeats are allowed; a currency column is checked, and the
// headers of `payments list -o csv` are read.
func TestReadRowsAsTheServiceSeesThem(t *testing.T) {
	in := "payment_id,amount,reference_id,currency\n" +
		pidA + ",10,r1,aed\n" +
		pidB + ",10,r1,AED\n" + // the same id on another payment: fine
		pidA + ",5,,\n" +
		pidA + ",5.00,,\n" + // the same row as line 4
		pidB + ",1.005,,AED\n" + // three places in AED
		pidB + ",1,,USD\n"
	rows, invalid, err := ReadRows(strings.NewReader(in), "in.csv", OpCapture)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range invalid {
		got = append(got, e.String())
	}
	if len(rows) != 3 || rows[0].Currency != "AED" || len(got) != 3 ||
		!strings.Contains(got[0], "line 5: is the same as line 4, with no reference_id") ||
		!strings.Contains(got[1], "line 6: amount:") || !strings.Contains(got[2], `line 7: currency: "USD" is not a currency`) {
		t.Fatalf("rows %+v\nproblems\n%s", rows, strings.Join(got, "\n"))
	}
	rows, invalid, err = ReadRowsWith(strings.NewReader(in), "in.csv", OpCapture, ReadOptions{AllowRepeats: true})
	if err != nil || len(rows) != 4 || len(invalid) != 2 {
		t.Fatalf("allow repeats: rows %d invalid %v err %v", len(rows), invalid, err)
	}

	list := "ID,STATUS,AMOUNT,CURRENCY,REFERENCE,CREATED\n" + pidA + ",AUTHORIZED,1250.00,AED,ORDER-1,2026-11-25T10:00:00Z\n"
	rows, invalid, err = ReadRows(strings.NewReader(list), "list.csv", OpCapture)
	if err != nil || len(invalid) != 0 || len(rows) != 1 || rows[0] != (Row{Line: 2, Op: OpCapture, PaymentID: pidA, Amount: "1250.00", Currency: "AED"}) {
		t.Fatalf("list headers: rows %+v invalid %v err %v", rows, invalid, err)
	}

	_, _, err = ReadRows(strings.NewReader("payment_id,amount,note\n"), "x.csv", OpCapture)
	if err == nil || !strings.Contains(err.Error(), `unknown column "note": the columns of capture are payment_id, amount, reference_id, tax_amount, shipping_amount, discount_amount, currency`) {
		t.Errorf("unknown column: %v", err)
	}
}
