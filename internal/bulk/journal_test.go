package bulk

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

func TestTornLastJournalLineIsCutOffAndTheRowResent(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "10")
	o := testOptions(t, OpCapture)
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}

	// Rebuild the journal as a crash while writing the second row's result
	// would have left it: that result half written, with no newline.
	data, err := os.ReadFile(o.JournalPath)
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]byte
	var torn []byte
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var rec journalRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Event == eventResult && rec.PaymentID == ids[1] {
			torn = line[:len(line)/2]
			continue
		}
		kept = append(kept, line)
	}
	broken := append(bytes.Join(kept, []byte("\n")), '\n')
	broken = append(broken, torn...)
	if err := os.WriteFile(o.JournalPath, broken, 0o600); err != nil {
		t.Fatal(err)
	}

	// The row whose result was torn is read back: the payment shows its
	// capture, so it is reconciled and not sent again.
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.OK != 1 || sum.Reconciled != 1 || sum.Earlier != 1 {
		t.Fatalf("resume: err %v, summary %+v", err, sum)
	}
	var refs []string
	for _, c := range f.callsOf("capture") {
		if c.paymentID == ids[1] {
			refs = append(refs, c.referenceID)
		}
	}
	if len(refs) != 1 {
		t.Fatalf("second row sent with %v", refs)
	}
	if len(f.payment(ids[1]).Captures) != 1 || len(f.callsOf("capture")) != 2 {
		t.Fatalf("ledger %+v", f.payment(ids[1]).Captures)
	}

	// What is left is whole lines only.
	data, _ = os.ReadFile(o.JournalPath)
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var rec journalRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("journal line %d %q: %v", i+1, line, err)
		}
	}
}

func TestDamagedJournalLineStopsTheRun(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 1, "AED", "100", api.StatusAuthorized)
	o := testOptions(t, OpCapture)
	content := `{"event":"run","op":"capture","format":1,"pid":` + strconv.Itoa(os.Getpid()) + `,"at":"2026-11-21T12:00:00Z"}` + "\n" +
		"garbage\n" +
		`{"event":"run","op":"capture","format":1,"pid":` + strconv.Itoa(os.Getpid()) + `,"at":"2026-11-21T12:00:00Z"}` + "\n"
	if err := os.WriteFile(o.JournalPath, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), f, captureRows(ids, "10"), o)
	if err == nil || !strings.Contains(err.Error(), "line 2 is damaged") {
		t.Fatalf("err = %v", err)
	}
	if len(f.calls) != 0 {
		t.Fatal("rows were sent despite a damaged journal")
	}
}

func TestJournalRecordFormat(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "100", api.StatusAuthorized)
	o := testOptions(t, OpCapture)
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	o.now = func() time.Time { return at }
	rows := []Row{{Line: 2, PaymentID: id, Amount: "40.00", ReferenceID: "order-7"}}
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
	key := rowKeys(OpCapture, rows)[0]
	host, _ := os.Hostname()
	place, _ := json.Marshal(host + ":" + filepath.Join(o.LedgerDir, ledger.FileName))
	want := `{"event":"run","op":"capture","format":1,"pid":` + strconv.Itoa(os.Getpid()) + `,"at":"2026-11-21T12:00:00Z"}
{"event":"ledger","op":"capture","ledger":"ID","ledger_at":` + string(place) + `,"at":"2026-11-21T12:00:00Z"}
{"event":"send","op":"capture","key":"` + key + `","line":2,"payment_id":"` + id + `","reference_id":"order-7","amount":"40.00","at":"2026-11-21T12:00:00Z"}
{"event":"result","op":"capture","key":"` + key + `","line":2,"payment_id":"` + id + `","reference_id":"order-7","amount":"40.00","outcome":"ok","payment_status":"AUTHORIZED","at":"2026-11-21T12:00:00Z"}
`
	got, _ := os.ReadFile(o.JournalPath)
	// The ledger's id is its own, made at random.
	got = regexp.MustCompile(`"ledger":"[0-9a-f]{32}"`).ReplaceAll(got, []byte(`"ledger":"ID"`))
	if string(got) != want {
		t.Fatalf("journal\n got:\n%s\nwant:\n%s", got, want)
	}
}

func TestRowKeys(t *testing.T) {
	a := Row{Line: 2, PaymentID: pidA, Amount: "100.00"}
	b := Row{Line: 3, PaymentID: pidB, Amount: "5"}
	base := rowKeys(OpCapture, []Row{a, b})

	// Another row inserted before them, lines shifted: their keys hold.
	inserted := rowKeys(OpCapture, []Row{{Line: 2, PaymentID: pidB, Amount: "7"}, {Line: 3, PaymentID: pidA, Amount: "100.00"}, {Line: 4, PaymentID: pidB, Amount: "5"}})
	if inserted[1] != base[0] || inserted[2] != base[1] {
		t.Error("inserting a row changed the keys of the others")
	}
	// The same amount written differently is the same row.
	if k := rowKeys(OpCapture, []Row{{PaymentID: pidA, Amount: "100"}}); k[0] != base[0] {
		t.Error("100 and 100.00 have different keys")
	}
	// An edited row is a new row, and so is the same row for another op.
	if k := rowKeys(OpCapture, []Row{{PaymentID: pidA, Amount: "100.01"}}); k[0] == base[0] {
		t.Error("an edited amount kept its key")
	}
	if k := rowKeys(OpRefund, []Row{a}); k[0] == base[0] {
		t.Error("capture and refund rows share a key")
	}
	// Two identical rows, two partial captures, are two rows.
	if k := rowKeys(OpCapture, []Row{a, a}); k[0] == k[1] {
		t.Error("identical rows share a key")
	}
}

func rowKeys(op Op, rows []Row) []string {
	keys, _ := rowIdentity("", withOp(op, rows))
	return keys
}

// withOp is rows, copied, each making op.
func withOp(op Op, rows []Row) []Row {
	out := append([]Row(nil), rows...)
	for i := range out {
		out[i].Op = op
	}
	return out
}
