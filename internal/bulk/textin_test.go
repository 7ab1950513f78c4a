package bulk

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"

	"golang.org/x/text/encoding/unicode"
)

// utf16LE is s as UTF-16LE, after bom (nil for none).
func utf16LE(s string, bom bool) string {
	var b []byte
	if bom {
		b = append(b, 0xFF, 0xFE)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return string(b)
}

func utf16BE(s string) string {
	b := []byte{0xFE, 0xFF}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return string(b)
}

// The same moves, saved as people save them, read as the same rows.
const plainCaptures = "payment_id,amount,reference_id\n" + pidA + ",100.00,ORDER-Café-1\n" + pidB + ",full,\"R;2\"\n"

func TestReadFilesAsPeopleSaveThem(t *testing.T) {
	want, invalid, err := ReadRows(strings.NewReader(plainCaptures), "c.csv", OpCapture)
	if err != nil || len(invalid) != 0 || len(want) != 2 {
		t.Fatalf("plain: %v %v %v", want, invalid, err)
	}
	excelUnicodeText := utf16LE("payment_id\tamount\treference_id\r\n"+pidA+"\t100.00\tORDER-Café-1\r\n"+pidB+"\tfull\tR;2\r\n", true)
	for what, in := range map[string]string{
		"UTF-16LE tab CRLF (Excel Unicode text)": excelUnicodeText,
		"UTF-16LE without a byte-order mark":     utf16LE(plainCaptures, false),
		"UTF-16BE":                               utf16BE(plainCaptures),
		"semicolons":                             "payment_id;amount;reference_id\n" + pidA + ";100.00;ORDER-Café-1\n" + pidB + ";full;\"R;2\"\n",
		"tabs":                                   "payment_id\tamount\treference_id\n" + pidA + "\t100.00\tORDER-Café-1\n" + pidB + "\tfull\tR;2\n",
		"CR-only line ends":                      strings.ReplaceAll(plainCaptures, "\n", "\r"),
		"trailing empty header cell":             "payment_id,amount,reference_id,\n" + pidA + ",100.00,ORDER-Café-1,\n" + pidB + ",full,\"R;2\"\n",
		"UTF-16LE semicolons CR-only":            utf16LE("payment_id;amount;reference_id;\r"+pidA+";100.00;ORDER-Café-1;\r"+pidB+";full;\"R;2\";\r", true),
	} {
		rows, invalid, err := ReadRows(iotest.HalfReader(strings.NewReader(in)), "c.csv", OpCapture)
		if err != nil || len(invalid) != 0 || !reflect.DeepEqual(rows, want) {
			t.Errorf("%s:\n got %+v %v %v\nwant %+v", what, rows, invalid, err, want)
		}
	}
	// Excel's sep= line names the separator and is skipped: the rows keep
	// their lines in the file.
	rows, invalid, err := ReadRows(strings.NewReader("sep=;\r\npayment_id;amount;reference_id\r\n"+pidA+";100.00;ORDER-Café-1\r\n"+pidB+";full;R;2\r\n"), "c.csv", OpCapture)
	if err != nil || len(rows) != 1 || rows[0].Line != 3 || len(invalid) != 1 || invalid[0].Line != 4 ||
		!strings.Contains(invalid[0].Message, "has 4 fields, the header has 3") {
		t.Errorf("sep=;: %+v %v %v", rows, invalid, err)
	}
	for _, first := range []string{"\"sep=;\"", "SEP=;", "sep=;;;"} {
		rows, _, err := ReadRows(strings.NewReader(first+"\npayment_id;amount\n"+pidA+";1\n"), "c.csv", OpCapture)
		if err != nil || len(rows) != 1 || rows[0].Amount != "1" {
			t.Errorf("%s: %+v %v", first, rows, err)
		}
	}
	// A CR-only file's lines are counted at each CR, in row errors and in
	// encoding errors alike.
	_, invalid, _ = ReadRows(strings.NewReader("payment_id,amount\r"+pidA+",1\r"+pidB+",x\r"), "c.csv", OpCapture)
	if len(invalid) != 1 || invalid[0].Line != 3 {
		t.Errorf("CR-only line: %v", invalid)
	}
	_, _, err = ReadRows(strings.NewReader("payment_id,amount\r"+pidA+",1\r"+pidB+",\xe9\r"), "c.csv", OpCapture)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 3 {
		t.Errorf("CR-only encoding error: %v", err)
	}
}

// A UTF-16 file is never sent to --input-encoding windows-1252: it is read
// as it is, refused when it also names an encoding, and its damage named.
func TestReadUTF16Refusals(t *testing.T) {
	in := utf16LE(plainCaptures, true)
	_, _, err := ReadRowsWith(strings.NewReader(in), "c.csv", OpCapture, ReadOptions{Encoding: "windows-1252"})
	var ie *InputError
	if !errors.As(err, &ie) || ie.ExitCode() != 2 || !strings.Contains(ie.Message, "is UTF-16LE (it starts with the byte-order mark FF FE), not windows-1252") ||
		!strings.Contains(ie.Hint(), "leave --input-encoding out") {
		t.Errorf("named encoding: %v", err)
	}
	// Half of a surrogate pair.
	bad := in[:len(in)-4] + "\x00\xd8" + in[len(in)-2:]
	_, _, err = ReadRows(strings.NewReader(bad), "c.csv", OpCapture)
	if !errors.As(err, &ie) || !strings.Contains(ie.Message, "not a character of UTF-16LE") || strings.Contains(ie.Hint(), "windows-1252") {
		t.Errorf("lone surrogate: %v (%s)", err, ie.Hint())
	}
	// A NUL byte in a file read as UTF-8 is refused, hinting at UTF-16,
	// never at windows-1252.
	_, _, err = ReadRows(strings.NewReader("payment_id,amount\n"+pidA+",1\x00\n"), "c.csv", OpCapture)
	if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(ie.Message, "is NUL (0x00)") || strings.Contains(ie.Hint(), "windows-1252") {
		t.Errorf("NUL: %v", err)
	}
}

// A header that mixes separators, or names nothing, is refused, saying so.
func TestReadHeaderSeparatorErrors(t *testing.T) {
	for in, want := range map[string]string{
		"payment_id;amount,reference_id\n":  `unknown column "payment_id;amount": it holds ";", and the file is read as separated by ","`,
		"payment_id,,amount\n":              "a column of the header has no name",
		"sep=\npayment_id\n":                "starts with a sep= line that names no separator",
		"sep=ab\npayment_id\n":              `starts with a sep= line, "sep=ab", that does not name one separator`,
		"sep=,\npayment_id;amount\n" + pidA: `line 2: unknown column "payment_id;amount": it holds ";", and the file is read as separated by "," (named by its first line, sep=,)`,
		"payment_id\tamount;reference_id\n": `unknown column "payment_id\tamount;reference_id": it holds ";" and a tab, and the file is read as separated by "," (the default: no one separator fits the header)`,
	} {
		_, _, err := ReadRows(strings.NewReader(in), "c.csv", OpCapture)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	// A row separated otherwise than its header, and a value under the
	// header's unnamed trailing column.
	_, invalid, err := ReadRows(strings.NewReader("payment_id;amount;\n"+pidA+",1.00\n"+pidB+";2;x\n"), "c.csv", OpCapture)
	if err != nil || len(invalid) != 2 ||
		!strings.Contains(invalid[0].Message, `has 1 fields, the header has 2 (the header is separated by ";" and this row holds ","`) ||
		!strings.Contains(invalid[1].Message, `has "x" in column 3, which the header does not name`) {
		t.Errorf("rows: %v %v", invalid, err)
	}
	// A decimal comma in a ";" file is named as such.
	_, invalid, _ = ReadRows(strings.NewReader("payment_id;amount\n"+pidA+";1,50\n"+pidB+";1,500\n"), "c.csv", OpCapture)
	if len(invalid) != 2 || !strings.Contains(invalid[0].Message, `"1,50" has a decimal comma: write 1.50`) ||
		!strings.Contains(invalid[1].Message, `write 1.500 if it is a decimal comma, or 1500 if it is a thousands separator`) {
		t.Errorf("decimal comma: %v", invalid)
	}
}

// ID,1,50 under payment_id,amount,reference_id is most likely 1,50 with
// an unquoted decimal comma: refused until AllowSplitAmounts says it is
// meant, and then told to SplitAmount.
func TestReadSplitAmount(t *testing.T) {
	in := "payment_id,amount,reference_id,reason\n" +
		pidA + ",1,50,\n" + // split
		pidA + ",1,ORDER-50,\n" + // an id, not digits
		pidB + ",2,500,\n" + // KWD's three places
		pidB + ",3.00,50,\n" + // an amount with its point
		pidB + ",4,5,\n" // one digit
	_, invalid, err := ReadRows(strings.NewReader(in), "r.csv", OpRefund)
	if err != nil || len(invalid) != 2 || invalid[0].Line != 2 || invalid[1].Line != 4 || invalid[0].Field != colAmount ||
		invalid[0].Message != `1, then reference_id "50": is this 1,50, its decimal comma read as a separator? write 1.50; if amount 1 and reference_id 50 are meant, pass --allow-split-amounts` {
		t.Fatalf("invalid %v err %v", invalid, err)
	}
	var told []RowError
	rows, invalid, err := ReadRowsWith(strings.NewReader(in), "r.csv", OpRefund, ReadOptions{AllowSplitAmounts: true, SplitAmount: func(e RowError) { told = append(told, e) }})
	if err != nil || len(invalid) != 0 || len(rows) != 5 || len(told) != 2 || told[0].Line != 2 || told[0].PaymentID != pidA || told[1].Amount != "2" || told[1].ReferenceID != "500" {
		t.Fatalf("allowed: rows %d invalid %v told %+v err %v", len(rows), invalid, told, err)
	}
	// Not when the next column is an amount (the tax would be checked on
	// its own), nor in a file separated by ";".
	for _, in := range []string{
		"payment_id,amount,tax_amount\n" + pidA + ",1,50\n",
		"payment_id;amount;reference_id\n" + pidA + ";1;50\n",
	} {
		_, invalid, err := ReadRows(strings.NewReader(in), "c.csv", OpCapture)
		for _, e := range invalid {
			if strings.Contains(e.Message, "allow-split-amounts") || err != nil {
				t.Errorf("%q: %v %v", in, invalid, err)
			}
		}
	}
	// One cell too many: the decimal comma is named.
	_, invalid, _ = ReadRows(strings.NewReader("payment_id,amount,reference_id\n"+pidA+",1,50,R-1\n"), "c.csv", OpCapture)
	if len(invalid) != 1 || !strings.Contains(invalid[0].Message, "has 4 fields, the header has 3 (is 1,50 in column 2 an amount with a decimal comma? write 1.50)") {
		t.Errorf("too many: %v", invalid)
	}
}

// readAll is what ScanRows makes of in: its rows, its invalid rows, and
// its error's text.
func readAll(in, name string, op Op) ([]Row, []RowError, string) {
	rows, invalid, err := ReadRowsWith(strings.NewReader(in), name, op, ReadOptions{AllowSplitAmounts: true})
	if err != nil {
		return nil, nil, err.Error()
	}
	return rows, invalid, ""
}

// FuzzReadText reads any bytes without a panic, and reads text the same
// whatever it is saved as: UTF-16LE with a byte-order mark, and CR-only
// line ends for LF ones.
func FuzzReadText(f *testing.F) {
	f.Add(plainCaptures, "c.csv")
	f.Add("sep=;\npayment_id;amount;reason\n"+pidA+";1;\"a\nb\"\n", "c.csv")
	f.Add("payment_id\tamount\n"+pidA+"\t1,50\n", "-")
	f.Add(`{"payment_id":"`+pidA+`","amount":"1"}`+"\n", "r.jsonl")
	f.Add("op,payment_id,amount,reference_id,\n"+"refund,"+pidA+",1,50,\n", "a.csv")
	f.Fuzz(func(t *testing.T, in, name string) {
		rows, invalid, errText := readAll(in, name, OpApply)
		if len(in) >= 2000 || strings.ContainsAny(in, "\x00\ufffd") || !utf8Valid(in) {
			return
		}
		// UTF-16: the same rows; an error where UTF-8 had one (its
		// offsets count other bytes).
		rows16, invalid16, err16 := readAll(utf16LE(in, true), name, OpApply)
		if !reflect.DeepEqual(rows, rows16) || !reflect.DeepEqual(invalid, invalid16) || (errText == "") != (err16 == "") {
			t.Fatalf("UTF-16LE:\n%+v %v %q\n%+v %v %q", rows, invalid, errText, rows16, invalid16, err16)
		}
		if strings.Contains(in, "\r") {
			return
		}
		rowsCR, invalidCR, errCR := readAll(strings.ReplaceAll(in, "\n", "\r"), name, OpApply)
		if !reflect.DeepEqual(rows, rowsCR) || !reflect.DeepEqual(invalid, invalidCR) || errText != errCR {
			t.Fatalf("CR-only:\n%+v %v %q\n%+v %v %q", rows, invalid, errText, rowsCR, invalidCR, errCR)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\ufffd") == s }

// UTF-16 is told only by its byte-order mark or the NUL bytes of an ASCII
// start; CR-only line ends only by a first line end that is a CR alone.
func TestSniffs(t *testing.T) {
	for in, want := range map[string]bool{
		"\xff\xfep\x00": true, "\xfe\xff\x00p": true, "p\x00a\x00": true, "\x00p\x00a": true,
		"payment_id": false, "p\x00": false, "\xe9\x00a\x00": false, "pa\x00\x00": false, "": false,
	} {
		if _, _, got := sniffUTF16([]byte(in)); got != want {
			t.Errorf("sniffUTF16(%q) = %v", in, got)
		}
	}
	for _, c := range []struct {
		in    string
		whole bool
		want  bool
	}{
		{"a\rb", false, true}, {"a\r\nb", false, false}, {"a\nb\rc", false, false},
		{"a\r", false, false}, {"a\r", true, true}, {"abc", true, false},
	} {
		if got := crOnly([]byte(c.in), false, unicode.LittleEndian, c.whole); got != c.want {
			t.Errorf("crOnly(%q, whole %v) = %v", c.in, c.whole, got)
		}
	}
	// A CR in UTF-16 is a code unit, not a byte of another character
	// (U+0D41 holds the bytes 41 0D).
	if crOnly([]byte(utf16LE("a\u0d41b\n", false)), true, unicode.LittleEndian, true) {
		t.Error("UTF-16LE: U+0D41 taken for a line end")
	}
	if !crOnly([]byte(utf16LE("a\rb", false)), true, unicode.LittleEndian, true) {
		t.Error("UTF-16LE: CR not seen")
	}
}

// Excel for Mac's "CSV (Macintosh)" is Mac OS Roman with CR line ends: a
// byte that is not UTF-8 in a CR-only file is refused naming macintosh,
// and read with it.
func TestReadMacintosh(t *testing.T) {
	in := "payment_id,amount,reference_id\r" + pidA + ",1.00,Caf\x8e-1\r"
	_, _, err := ReadRows(strings.NewReader(in), "mac.csv", OpCapture)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(ie.Hint(), "--input-encoding macintosh") {
		t.Fatalf("err %v", err)
	}
	rows, invalid, err := ReadRowsWith(strings.NewReader(in), "mac.csv", OpCapture, ReadOptions{Encoding: "macintosh"})
	if err != nil || len(invalid) != 0 || len(rows) != 1 || rows[0].ReferenceID != "Café-1" {
		t.Fatalf("rows %+v invalid %v err %v", rows, invalid, err)
	}
}
