package output

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/clipperhouse/displaywidth"
)

// wrapMinimum is the narrowest wrapped column i may be: its header, and
// its longest word (at least minWrapNarrow cells, at most maxWordWidth;
// never more than its widest cell). The cells of an
// id-like column (a request path) break only after a "/", so its minimum
// is its widest piece: an id inside it stays whole on one line.
func wrapMinimum(header string, rows [][]string, i int, k Kind) int {
	widest, piece, id := 0, 0, 0
	for _, row := range rows {
		if i >= len(row) {
			continue
		}
		widest = max(widest, displaywidth.String(row[i]))
		for _, p := range wrapPieces(row[i], k) {
			w := displaywidth.String(strings.TrimSpace(p))
			piece = max(piece, w)
			if uuidPattern().MatchString(p) {
				id = max(id, w)
			}
		}
	}
	// A word is not split while it is no wider than maxWordWidth, nor an
	// id in free text (a request quoted in a difference) at all.
	m := max(min(widest, max(minWrapNarrow, min(piece, maxWordWidth))), id)
	if k == KindID {
		m = max(m, piece)
	}
	return max(m, displaywidth.String(header))
}

// widestWord is the width of the widest space-separated word in column i.
func widestWord(rows [][]string, i int) int {
	widest := 0
	for _, row := range rows {
		if i >= len(row) {
			continue
		}
		for _, w := range strings.Fields(row[i]) {
			widest = max(widest, displaywidth.String(w))
		}
	}
	return widest
}

// maxWordWidth is the widest word a wrapped column keeps on one line
// whatever the room; a wider one may be split.
const maxWordWidth = 20

// uuidPattern matches an id as the service and the sandbox write them.
var uuidPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
})

// urlPattern matches a URL written in a cell: a scheme, "://" and what
// follows up to a space.
var urlPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://\S+`)
})

// inSpan reports whether offset i lies inside one of spans.
func inSpan(spans [][]int, i int) bool {
	for _, sp := range spans {
		if i >= sp[0] && i < sp[1] {
			return true
		}
	}
	return false
}

// wrapPieces splits s where a wrapped line may break: after each space,
// after each "/" (a path or URL) but in a time, after each "," (JSON), and
// after each "-" but in a time, an id (of an id column, or one written in
// text), or between two digits (a date, the "2026-004711" of a reference
// "ORDER-2026-004711").
func wrapPieces(s string, k Kind) []string {
	breaks := " /-,"
	switch k {
	case KindTime:
		breaks = " "
	case KindID, KindLinkID:
		breaks = " /"
	}
	var ids [][]int
	if strings.IndexByte(breaks, '-') >= 0 {
		ids = uuidPattern().FindAllStringIndex(s, -1)
	}
	// A URL is one piece: a line never breaks inside it.
	urls := urlPattern().FindAllStringIndex(s, -1)
	return cutAfter(s, func(i int) bool {
		if s[i] != ' ' && inSpan(urls, i) {
			return false
		}
		if s[i] == '-' && (inSpan(ids, i) || isDigitAt(s, i-1) && isDigitAt(s, i+1)) {
			return false
		}
		return strings.IndexByte(breaks, s[i]) >= 0
	})
}

// cutAfter splits s after each byte offset i for which cut(i) is true,
// asked of every offset in order; the pieces joined are s.
func cutAfter(s string, cut func(i int) bool) []string {
	var pieces []string
	start := 0
	for i := 0; i < len(s); i++ {
		if cut(i) {
			pieces = append(pieces, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		pieces = append(pieces, s[start:])
	}
	return pieces
}

// wrapCell breaks s into lines of at most width cells, between words; a
// word wider than a line is split as breakWord says. JSON breaks between
// its members instead (wrapJSON).
func wrapCell(s string, width int) []string {
	if isJSONCell(s) {
		return wrapJSON(s, width)
	}
	var lines []string
	cur, curW := "", 0
	for _, word := range cellWords(s, width) {
		for displaywidth.String(word) > width {
			if cur != "" {
				lines = append(lines, cur)
				cur, curW = "", 0
			}
			// A path or URL breaks after a "/", so that what lies between
			// two (an id) stays on one line; JSON after a ","; else a
			// reference after a "-", but never a date.
			head := breakWord(word, width)
			lines = append(lines, head)
			word = word[len(head):]
		}
		w := displaywidth.String(word)
		switch {
		case word == "":
		case cur == "":
			cur, curW = word, w
		case curW+1+w <= width:
			cur, curW = cur+" "+word, curW+1+w
		default:
			lines = append(lines, cur)
			cur, curW = word, w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// cellWords are the words of a cell as Wrap sees them: an amount and its
// currency, or a command, one word while it fits in width.
func cellWords(s string, width int) []string {
	var words []string
	for _, u := range units(s) {
		if displaywidth.String(u) <= width {
			words = append(words, u)
		} else {
			words = append(words, strings.Fields(u)...)
		}
	}
	return words
}

// isJSONCell reports whether a cell holds a JSON object or array (a
// record's nested field shown as it is, --columns buyer).
func isJSONCell(s string) bool {
	if len(s) < 2 {
		return false
	}
	open, end := s[0], s[len(s)-1]
	return (open == '{' && end == '}' || open == '[' && end == ']') && json.Valid([]byte(s))
}

// jsonPieces splits a JSON text after each "," between members or
// elements, the places a line may break without a reader taking a string
// cut in two for two values. A "," inside a string is not one of them.
func jsonPieces(s string) []string {
	var js jsonStrings
	return cutAfter(s, func(i int) bool {
		return js.outside(s[i]) && s[i] == ','
	})
}

// jsonStrings follows a JSON text byte by byte, knowing whether the byte
// is inside a string.
type jsonStrings struct{ in, escaped bool }

// outside takes c, the next byte of the text, and reports whether it is
// outside every string (a quote itself is not).
func (j *jsonStrings) outside(c byte) bool {
	switch {
	case j.escaped:
		j.escaped = false
		return false
	case j.in && c == '\\':
		j.escaped = true
		return false
	case c == '"':
		j.in = !j.in
		return false
	}
	return !j.in
}

// wrapJSON breaks a JSON text into lines of at most width cells, after a
// "," between members (see jsonPieces), never at a space inside a string.
// A member wider than a line breaks after its name's ":"; only a string
// wider than a line itself is split, as breakWord says.
func wrapJSON(s string, width int) []string {
	var lines []string
	cur := ""
	for _, piece := range jsonPieces(s) {
		for displaywidth.String(piece) > width {
			if cur != "" {
				lines = append(lines, cur)
				cur = ""
			}
			head := jsonHead(piece, width)
			lines = append(lines, head)
			piece = piece[len(head):]
		}
		if cur != "" && displaywidth.String(cur)+displaywidth.String(piece) > width {
			lines = append(lines, cur)
			cur = ""
		}
		cur += piece
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// jsonHead is the longest head of a JSON piece no wider than width that
// ends after a ":" outside a string (a member's name); else what
// breakWord gives.
func jsonHead(piece string, width int) string {
	var js jsonStrings
	cut := 0
	for i := 0; i < len(piece); i++ {
		if displaywidth.String(piece[:i+1]) > width {
			break
		}
		if js.outside(piece[i]) && piece[i] == ':' {
			cut = i + 1
		}
	}
	if cut > 0 {
		return piece[:cut]
	}
	return breakWord(piece, width)
}
