package bulk

import (
	"encoding/json"
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

// latin1 gives bytes 0x80 to 0x9F to C1 controls, which no text means: a
// Windows-1252 file read as latin1 (its euro sign, its curly quotes) is
// refused, naming the byte, never read as invisible characters.
func TestLatin1RefusesC1Bytes(t *testing.T) {
	in := "payment_id,amount,reference_id,reason\n" + pidA + ",1.00,R-\x80-1,\x93late\x94\n"
	_, _, err := ReadRowsWith(strings.NewReader(in), "refunds.csv", OpRefund, ReadOptions{Encoding: "latin1"})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 2 || ie.ExitCode() != 2 ||
		!strings.Contains(ie.Message, "the byte at offset 82 of the file is not a character of latin1") {
		t.Fatalf("latin1: %v", err)
	}
	rows, _, err := ReadRowsWith(strings.NewReader(in), "refunds.csv", OpRefund, ReadOptions{Encoding: "windows-1252"})
	if err != nil || len(rows) != 1 || rows[0].ReferenceID != "R-€-1" || rows[0].Reason != "“late”" {
		t.Fatalf("windows-1252: rows %+v err %v", rows, err)
	}
}

// A reference_id holding a control, format or bidi character is refused,
// naming the character and where it is: it would be another id than the
// one a person reads.
func TestReferenceIDInvisibleCharactersRefused(t *testing.T) {
	for ref, want := range map[string]string{
		"R\u202e1":   `reference_id: holds U+202E (a format or bidi character) at character 2`,
		"R\u200b1":   `reference_id: holds U+200B (a format or bidi character) at character 2`,
		"R-1\u0007":  `reference_id: holds U+0007 (a control character) at character 4`,
		"\ufeffR-1":  `reference_id: holds U+FEFF (a format or bidi character) at character 1`,
		"R-\u00ad-1": `reference_id: holds U+00AD (a format or bidi character) at character 3`,
		"R\u20281":   `reference_id: holds U+2028 (a line or paragraph separator) at character 2`,
	} {
		quoted, _ := json.Marshal(ref)
		in := `{"payment_id":"` + pidA + `","amount":"1.00","reference_id":` + string(quoted) + `}` + "\n"
		_, invalid, err := ReadRows(strings.NewReader(in), "r.jsonl", OpCapture)
		if err != nil || len(invalid) != 1 || !strings.Contains(invalid[0].String(), want) {
			t.Errorf("%q: invalid %v err %v, want %q", ref, invalid, err, want)
		}
	}
}
