package bulk

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// A file saved by Excel on Windows is Windows-1252: its bytes are refused
// as they are, naming the line and the byte, and read as text when the
// encoding is named.
func TestReadRowsEncoding(t *testing.T) {
	in := "payment_id,amount,reference_id\n" + pidA + ",10.00,ORDER-Caf\xe9-1\n"
	_, _, err := ReadRows(strings.NewReader(in), "orders.csv", OpCapture)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 2 || ie.ExitCode() != 2 ||
		!strings.Contains(ie.Message, "byte at offset 83 of the file (0xE9) is not UTF-8") || !strings.Contains(ie.Hint(), "--input-encoding windows-1252") {
		t.Fatalf("err = %v", err)
	}
	for _, enc := range []string{"windows-1252", "latin1", "CP1252"} {
		rows, invalid, err := ReadRowsWith(strings.NewReader(in), "orders.csv", OpCapture, ReadOptions{Encoding: enc})
		if err != nil || len(invalid) != 0 || len(rows) != 1 || rows[0].ReferenceID != "ORDER-Café-1" {
			t.Errorf("%s: rows %+v invalid %v err %v", enc, rows, invalid, err)
		}
	}
	// A byte Windows-1252 does not define is refused too.
	_, _, err = ReadRowsWith(strings.NewReader(strings.Replace(in, "\xe9", "\x81", 1)), "orders.csv", OpCapture, ReadOptions{Encoding: "windows-1252"})
	if !errors.As(err, &ie) || !strings.Contains(ie.Message, "byte at offset 83 of the file is not a character of windows-1252") {
		t.Errorf("undefined byte: %v", err)
	}
	if err := CheckInputEncoding("ebcdic"); err == nil {
		t.Error("ebcdic accepted")
	}
}

// A character cut by the end of a read is judged whole, so that UTF-8
// read one byte at a time passes, and a cut one at the end fails.
func TestUTF8InputAcrossReads(t *testing.T) {
	in := "payment_id,amount,reference_id,reason\n" + pidA + ",10.00,ORDER-Café-€-😀,\n"
	rows, _, err := ReadRows(iotest.OneByteReader(strings.NewReader(in)), "r.csv", OpCapture)
	if err != nil || len(rows) != 1 || rows[0].ReferenceID != "ORDER-Café-€-😀" {
		t.Fatalf("rows %+v err %v", rows, err)
	}
	u := newUTF8Input(strings.NewReader("ab\xe2\x82"), "x", "")
	_, err = io.ReadAll(iotest.OneByteReader(u))
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Message, "byte at offset 2 of the file (0xE2)") {
		t.Errorf("cut at the end: %v", err)
	}
	// JSON lines would turn the byte into U+FFFD silently: refused first.
	_, _, err = ReadRows(strings.NewReader(`{"payment_id":"`+pidA+`","amount":"1","reference_id":"x`+"\xff"+`"}`), "r.jsonl", OpCapture)
	if !errors.As(err, &ie) || ie.Line != 1 {
		t.Errorf("json: %v", err)
	}
}

func TestReadRowsTextBounds(t *testing.T) {
	in := "payment_id,amount,reference_id\n" + pidA + ",10.00," + strings.Repeat("r", 256) + "\n"
	_, invalid, err := ReadRows(strings.NewReader(in), "r.csv", OpCapture)
	if err != nil || len(invalid) != 1 || !strings.Contains(invalid[0].String(), "reference_id: has 256 characters, at most 255") {
		t.Errorf("invalid %v err %v", invalid, err)
	}
}
