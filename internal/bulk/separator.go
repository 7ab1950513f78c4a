package bulk

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// separators are the cell separators a CSV header is read with, told by
// the header itself: "," as the format's name says; ";" as Excel writes
// CSV where the decimal mark is a comma (most of Europe); a tab, as
// Excel's "Unicode text" and "Text (tab delimited)" do.
var separators = []rune{',', ';', '\t'}

// csvLayout is how a CSV input is laid out: its separator, and how many
// lines come before the header (one, for Excel's "sep=;" line).
type csvLayout struct {
	sep     rune
	skipped int
	// told says how the separator was told, for errors about it.
	told string
}

// readLayout peeks the first line of br and tells the separator: from a
// "sep=X" line, which Excel reads and bnpl then skips, or else from the
// header, whose names hold no separator: the one separator the header
// holds, or the one that splits it into known column names. An input
// whose header fits no separator is read with ",", and its unknown column
// is named with the separators it holds (see unknownColumn).
func readLayout(br *bufio.Reader, name string) (csvLayout, error) {
	first := firstLine(br)
	if sep, ok, err := sepLine(first, name); ok || err != nil {
		if err != nil {
			return csvLayout{}, err
		}
		_, _ = br.Discard(len(first))
		return csvLayout{sep: sep, skipped: 1, told: "named by its first line, " + strings.TrimSpace(first)}, nil
	}
	header := strings.TrimRight(first, "\r\n")
	var held, fit []rune
	for _, c := range separators {
		if strings.ContainsRune(header, c) {
			held = append(held, c)
			if headerFits(header, c) {
				fit = append(fit, c)
			}
		}
	}
	switch {
	case len(held) == 1:
		return csvLayout{sep: held[0], told: "told by its header"}, nil
	case len(fit) == 1:
		return csvLayout{sep: fit[0], told: "told by its header"}, nil
	}
	return csvLayout{sep: ',', told: "the default: no one separator fits the header"}, nil
}

// firstLine is the input's first line, its line end included, as far as
// the reader's buffer holds it.
func firstLine(br *bufio.Reader) string {
	b, _ := br.Peek(br.Size())
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i+1]
	}
	return string(b)
}

// sepLine reads Excel's "sep=X" line, which names the separator of the
// lines after it: "sep=;", quoted or not, perhaps followed by empty cells.
func sepLine(line, name string) (rune, bool, error) {
	s := strings.TrimPrefix(strings.TrimLeft(strings.TrimRight(line, "\r\n"), " "), `"`)
	if len(s) < 4 || !strings.EqualFold(s[:4], "sep=") {
		return 0, false, nil
	}
	rest := s[4:]
	c, size := utf8.DecodeRuneInString(rest)
	tail := strings.TrimPrefix(rest[size:], `"`)
	switch {
	case rest == "" || c == '"':
		return 0, false, &InputError{Name: name, Line: 1, hint: `write the separator after "sep=", as in sep=; or sep=,`,
			Message: "starts with a sep= line that names no separator"}
	case !validSeparator(c) || strings.Trim(tail, string(c)+",; ") != "":
		return 0, false, &InputError{Name: name, Line: 1, hint: `a sep= line names one separator: sep=, or sep=; or a tab after "sep="`,
			Message: fmt.Sprintf("starts with a sep= line, %q, that does not name one separator", strings.TrimSpace(line))}
	}
	return c, true, nil
}

// validSeparator is a character that can separate CSV cells: not a
// letter, digit, quote, blank other than a tab, or line end.
func validSeparator(c rune) bool {
	return c != utf8.RuneError && c != '"' && c != '\r' && c != '\n' &&
		(c == '\t' || !unicode.IsSpace(c)) && !unicode.IsLetter(c) && !unicode.IsDigit(c)
}

// headerFits is that header, split at sep, is known column names, with
// perhaps empty ones at the end.
func headerFits(header string, sep rune) bool {
	cells := strings.Split(header, string(sep))
	for len(cells) > 1 && strings.TrimSpace(cells[len(cells)-1]) == "" {
		cells = cells[:len(cells)-1]
	}
	for _, c := range cells {
		if _, _, ok := headerColumn(strings.Trim(strings.TrimSpace(c), `"`)); !ok {
			return false
		}
	}
	return true
}

// separatorName names a separator in a message.
func separatorName(c rune) string {
	switch c {
	case '\t':
		return "a tab"
	case ',':
		return `","`
	}
	return `"` + string(c) + `"`
}

// unknownColumn is the error of a header cell that names no column:
// when the cell holds a separator other than the one the file is read
// with, the header mixes separators, and that is said with the fix.
func unknownColumn(name, raw string, l csvLayout, op Op) error {
	msg := fmt.Sprintf("unknown column %q: %s", raw, columnsOf(op))
	hint := ""
	var held []string
	for _, c := range separators {
		if c != l.sep && strings.ContainsRune(raw, c) {
			held = append(held, separatorName(c))
		}
	}
	if len(held) > 0 {
		msg = fmt.Sprintf("unknown column %q: it holds %s, and the file is read as separated by %s (%s)",
			raw, strings.Join(held, " and "), separatorName(l.sep), l.told)
		hint = fmt.Sprintf("separate every cell of the header and the rows with one character, %s or %s (a first line sep=; names \";\")",
			separatorName(l.sep), held[0])
	}
	if hint == "" && strings.TrimSpace(raw) == "" {
		msg = "a column of the header has no name: name it (" + columnsOf(op) + ") or remove it"
	}
	return &InputError{Name: name, Line: l.skipped + 1, Message: msg, hint: hint}
}
