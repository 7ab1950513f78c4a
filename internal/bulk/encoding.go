package bulk

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Input encodings ReadRows takes besides UTF-8, by the names
// --input-encoding accepts. Both are single-byte encodings: one byte of
// the file is one character, so a position in the file is a count of
// characters read.
var inputEncodings = map[string]*charmap.Charmap{
	"windows-1252": charmap.Windows1252,
	"cp1252":       charmap.Windows1252,
	"latin1":       charmap.ISO8859_1,
	"iso-8859-1":   charmap.ISO8859_1,
	// Mac OS Roman: Excel for Mac's "CSV (Macintosh)", whose lines end
	// in CR alone.
	"macintosh": charmap.Macintosh,
	"mac-roman": charmap.Macintosh,
}

// InputEncodings names the encodings --input-encoding takes, for help
// and errors.
const InputEncodings = "utf-8 (the default), windows-1252, latin1, macintosh (UTF-16 is told by itself)"

// CheckInputEncoding refuses an encoding name ReadRows does not know.
func CheckInputEncoding(name string) error {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" || n == "utf-8" || n == "utf8" || inputEncodings[n] != nil {
		return nil
	}
	return fmt.Errorf("%q is not an input encoding this command reads: %s", name, InputEncodings)
}

// utf8Input passes a stream through, failing the read at the first byte
// that is not UTF-8 with an *InputError naming its line and its offset in
// the file. With a legacy encoding the stream is that encoding converted,
// and a character the encoding does not define (converted to U+FFFD) is
// refused the same way; offsets still count bytes of the file, one per
// character.
//
// Bytes that are not UTF-8 cannot be sent: the service stores them as
// U+FFFD, so that a reference_id is no longer the one sent (two different
// ids may become one) and a move cannot be found by it afterwards.
type utf8Input struct {
	r        io.Reader
	name     string
	encoding string // "" for UTF-8
	// charmap: the encoding is a single-byte one (one byte, one
	// character); utf16: the input is UTF-16, two bytes a character (four
	// beyond U+FFFF).
	charmap, utf16 bool
	off            int64 // offset in the file of the next byte (character, when decoding)
	line           int   // line of the next byte, 1-based
	// crLines: a carriage return alone ends a line (see crOnly); prevCR
	// is that the last character was one, so that a CRLF counts once.
	crLines, prevCR bool
	carry           []byte // the start of a character cut by the end of a read
	// err is kept: a reader above may drop an error on a peek, and the
	// input must not then look like it ended.
	err error
}

func newUTF8Input(r io.Reader, name, encoding string) io.Reader {
	enc := strings.ToLower(strings.TrimSpace(encoding))
	u := &utf8Input{name: name, line: 1}
	if cm := inputEncodings[enc]; cm != nil {
		u.r, u.encoding, u.charmap = cm.NewDecoder().Reader(r), enc, true
	} else {
		u.r = r
	}
	return u
}

func (u *utf8Input) Read(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	n, err := u.r.Read(p)
	data := p[:n]
	if len(u.carry) > 0 {
		data = append(append([]byte(nil), u.carry...), data...)
		u.carry = nil
	}
	for i := 0; i < len(data); {
		if c := data[i]; c >= 0x20 && c < 0x7f {
			// Printable ASCII, most of a file: one character, no line end.
			u.prevCR = false
			u.off += u.asciiBytes()
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			if err == nil && !utf8.FullRune(data[i:]) {
				// Cut by the end of this read: judged with the next.
				u.carry = append(u.carry, data[i:]...)
				break
			}
			u.err = u.invalid(data[i])
			return 0, u.err
		}
		if u.encoding != "" && (r == utf8.RuneError || (u.charmap && c1Control(r))) {
			u.err = u.undefined()
			return 0, u.err
		}
		if r == 0 {
			u.err = u.nul()
			return 0, u.err
		}
		u.count(r, size)
		i += size
	}
	if err == io.EOF && len(u.carry) > 0 {
		u.err = u.invalid(u.carry[0])
		return 0, u.err
	}
	return n, err
}

// asciiBytes is how many bytes of the file an ASCII character takes.
func (u *utf8Input) asciiBytes() int64 {
	if u.utf16 {
		return 2
	}
	return 1
}

// count moves the line and offset past r, size bytes of UTF-8.
func (u *utf8Input) count(r rune, size int) {
	switch {
	case r == '\r' && u.crLines:
		u.line++
	case r == '\n' && !(u.crLines && u.prevCR):
		u.line++
	}
	u.prevCR = r == '\r'
	switch {
	case u.utf16 && r > 0xFFFF:
		u.off += 4
	case u.utf16:
		u.off += 2
	case u.charmap:
		u.off++
	default:
		u.off += int64(size)
	}
}

// c1Control is a character latin1 gives bytes 0x80 to 0x9F: C1 controls,
// which no text means. A file that has such bytes was written in another
// encoding (windows-1252 puts the euro sign and curly quotes there), so
// they are refused as a byte the encoding does not define, never read as
// invisible characters that would become part of a reference_id.
func c1Control(r rune) bool { return r >= 0x80 && r <= 0x9f }

func (u *utf8Input) invalid(b byte) error {
	hint := "save the file as UTF-8, or name its encoding: --input-encoding windows-1252 (Excel's CSV on Windows) or latin1"
	if u.crLines {
		hint = "save the file as UTF-8, or name its encoding: --input-encoding macintosh (Excel's \"CSV (Macintosh)\", whose lines end in CR alone, as this file's do)"
	}
	return &InputError{Name: u.name, Line: u.line, hint: hint,
		Message: fmt.Sprintf("the byte at offset %d of the file (0x%02X) is not UTF-8: the service would store another text than the one sent, "+
			"and a reference_id would no longer find its move; nothing was sent", u.off, b)}
}

func (u *utf8Input) undefined() error {
	if u.utf16 {
		return &InputError{Name: u.name, Line: u.line, hint: "save the file again from the spreadsheet (in Excel: CSV UTF-8, or Unicode Text)",
			Message: fmt.Sprintf("the bytes at offset %d of the file are not a character of %s (half of a surrogate pair, a U+FFFD, or an odd byte at the end); nothing was sent", u.off, u.encoding)}
	}
	return &InputError{Name: u.name, Line: u.line, hint: "check the file's encoding: save it as UTF-8, or name the encoding it was written in",
		Message: fmt.Sprintf("the byte at offset %d of the file is not a character of %s (bytes 0x80 to 0x9F are control codes there, not text); nothing was sent", u.off, u.encoding)}
}

// nul refuses a NUL character, which no text holds: in a file read as
// UTF-8 it is most likely UTF-16 that does not start as one (see
// sniffUTF16), or not text at all.
func (u *utf8Input) nul() error {
	if u.utf16 {
		return &InputError{Name: u.name, Line: u.line, hint: "remove the NUL characters, or save the file again from the spreadsheet",
			Message: fmt.Sprintf("the character at offset %d of the file is NUL (U+0000), which no text holds; nothing was sent", u.off)}
	}
	return &InputError{Name: u.name, Line: u.line, hint: "save the file as UTF-8 (in Excel: CSV UTF-8); bnpl reads UTF-16 only when the file starts with its byte-order mark or with a column name",
		Message: fmt.Sprintf("the byte at offset %d of the file is NUL (0x00), which no text holds (is the file UTF-16, or not text?); nothing was sent", u.off)}
}
