package bulk

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/encoding/unicode"
)

// sniffBytes is how much of the start of an input is looked at to tell
// UTF-16 and CR-only line ends: far more than a header row takes.
const sniffBytes = 4096

// openText is the input as UTF-8 text whose lines end in LF (or CRLF),
// its byte-order mark dropped, ready for the CSV or JSON-lines reader:
//
//   - UTF-16 (Excel's "Unicode text", Windows' "Unicode"), told by its
//     byte-order mark (FF FE, FE FF) or, without one, by the NUL bytes of
//     a first column name, is converted to UTF-8; the file must then not
//     also name an encoding;
//   - a file in encoding (windows-1252, latin1) is converted;
//   - whatever the encoding, text that is not valid is refused whole, its
//     line and offset named (see utf8Input);
//   - a file whose first line ends in a carriage return alone (CR-only
//     line ends, as classic Mac OS wrote) has every CR read as a line end.
func openText(r io.Reader, name, encoding string) (*bufio.Reader, error) {
	raw := bufio.NewReaderSize(r, sniffBytes)
	head, _ := raw.Peek(sniffBytes)
	whole := len(head) < sniffBytes
	u := &utf8Input{name: name, line: 1}
	enc := strings.ToLower(strings.TrimSpace(encoding))
	order, bom, isUTF16 := sniffUTF16(head)
	switch {
	case isUTF16 && enc != "":
		return nil, &InputError{Name: name, hint: "leave --input-encoding out: bnpl reads UTF-16 as it is",
			Message: fmt.Sprintf("is %s (%s), not %s; nothing was sent", utf16Name(order), utf16Evidence(head, bom), encoding)}
	case isUTF16:
		if bom {
			_, _ = raw.Discard(2)
			head = head[2:]
			u.off = 2
		}
		u.r = unicode.UTF16(order, unicode.IgnoreBOM).NewDecoder().Reader(raw)
		u.encoding, u.utf16 = utf16Name(order), true
	case inputEncodings[enc] != nil:
		u.r, u.encoding, u.charmap = inputEncodings[enc].NewDecoder().Reader(raw), enc, true
	default:
		u.r = raw
	}
	u.crLines = crOnly(head, isUTF16, order, whole)
	var text io.Reader = u
	if u.crLines {
		text = &crLines{r: u}
	}
	br := bufio.NewReader(&lineCap{r: text, name: name})
	// A byte-order mark from a spreadsheet export would otherwise become
	// part of the first column's name.
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	return br, nil
}

// sniffUTF16 tells UTF-16 from the start of a file: by its byte-order
// mark, or, without one, by a NUL byte after each of the first two
// characters (before them, for big-endian), which no UTF-8 or single-byte
// text has: every input this reads starts with an ASCII character (a
// column name, a quote, "{", "sep="), so a UTF-16 one is always told.
func sniffUTF16(head []byte) (order unicode.Endianness, bom, ok bool) {
	switch {
	case len(head) >= 2 && head[0] == 0xFF && head[1] == 0xFE:
		return unicode.LittleEndian, true, true
	case len(head) >= 2 && head[0] == 0xFE && head[1] == 0xFF:
		return unicode.BigEndian, true, true
	case len(head) < 4:
		return unicode.LittleEndian, false, false
	case head[0] != 0 && head[0] < 0x80 && head[1] == 0 && head[2] != 0 && head[2] < 0x80 && head[3] == 0:
		return unicode.LittleEndian, false, true
	case head[0] == 0 && head[1] != 0 && head[1] < 0x80 && head[2] == 0 && head[3] != 0 && head[3] < 0x80:
		return unicode.BigEndian, false, true
	}
	return unicode.LittleEndian, false, false
}

func utf16Name(order unicode.Endianness) string {
	if order == unicode.BigEndian {
		return "UTF-16BE"
	}
	return "UTF-16LE"
}

// utf16Evidence says how the file was told to be UTF-16.
func utf16Evidence(head []byte, bom bool) string {
	if bom {
		return fmt.Sprintf("it starts with the byte-order mark %02X %02X", head[0], head[1])
	}
	return "a NUL byte beside each of its first characters"
}

// crOnly reports whether the first line of head ends in a carriage
// return alone. whole is that head is the whole input; otherwise a CR
// that ends head is judged by what follows, unknown, and taken as not.
func crOnly(head []byte, isUTF16 bool, order unicode.Endianness, whole bool) bool {
	units := make([]uint16, 0, len(head))
	if isUTF16 {
		for i := 0; i+1 < len(head); i += 2 {
			if order == unicode.BigEndian {
				units = append(units, uint16(head[i])<<8|uint16(head[i+1]))
			} else {
				units = append(units, uint16(head[i])|uint16(head[i+1])<<8)
			}
		}
	} else {
		for _, b := range head {
			units = append(units, uint16(b))
		}
	}
	for i, c := range units {
		switch {
		case c == '\n':
			return false
		case c != '\r':
		case i+1 < len(units):
			return units[i+1] != '\n'
		default:
			return whole
		}
	}
	return false
}

// crLines reads a file of CR-only line ends as one of LF line ends:
// each CR becomes an LF, and an LF just after a CR is dropped (a CRLF
// stays one line end).
type crLines struct {
	r      io.Reader
	prevCR bool
}

func (c *crLines) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		w := 0
		for _, b := range p[:n] {
			switch {
			case b == '\n' && c.prevCR:
				c.prevCR = false
				continue
			case b == '\r':
				b, c.prevCR = '\n', true
			default:
				c.prevCR = false
			}
			p[w] = b
			w++
		}
		if w > 0 || err != nil || n == 0 {
			return w, err
		}
	}
}
