package output

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/output -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s\n--- got ---\n%s\n--- want ---\n%s", name, path, got, want)
	}
}

// samplePayments reads the fixture as the raw records a command would hold.
func samplePayments(t testing.TB) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "payments.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []json.RawMessage
	if err := json.Unmarshal(data, &recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// paymentColumns are what `payments list` would pass: plain paths plus one
// computed column.
func paymentColumns() []Column {
	return []Column{
		{Header: "ID", Path: "id"},
		{Header: "STATUS", Path: "status"},
		{Header: "AMOUNT", Path: "amount"},
		{Header: "CURRENCY", Path: "currency"},
		{Header: "REFERENCE", Path: "order.reference_id"},
		{Header: "CAPTURES", Value: func(rec map[string]any) string {
			caps, _ := rec["captures"].([]any)
			return String(json.Number(itoa(len(caps))))
		}},
		{Header: "DESCRIPTION", Path: "description"},
		{Header: "CREATED", Path: "created_at"},
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

type testPrinter struct {
	p      *Printer
	ios    *IOStreams
	out    *bytes.Buffer
	errOut *bytes.Buffer
}

func newTestPrinter(t testing.TB, tty bool, width int, o Options) testPrinter {
	t.Helper()
	ios, _, out, errOut := Test()
	ios.SetStdoutTTY(tty)
	if width > 0 {
		ios.SetTerminalWidth(width)
	}
	p, err := NewPrinter(ios, o)
	if err != nil {
		t.Fatalf("NewPrinter(%+v): %v", o, err)
	}
	return testPrinter{p: p, ios: ios, out: out, errOut: errOut}
}

func exitCodeOf(err error) int { return errorExitCode(err) }
