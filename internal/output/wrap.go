package output

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
)

// Wrap breaks text into lines of at most width display cells, between
// words, for a person at a terminal. Each line of text is wrapped on its
// own; a line that fits is left exactly as it is. The lines a wrapped line
// goes on over are indented by its hanging indent (see hangOf): under the
// message of "error: …", "hint: …" or "warning: …", else under the line's
// own indent.
//
// Some runs of words are never parted (see units): an amount and its
// currency ("200.00 AED"), a number and its unit ("64 KiB"), a method and
// its path ("GET /api/v2/payments/…"), a bnpl
// command ("bnpl payments get"), a flag and its value ("--reference-id
// ID", "-o json"), a date and its time of day, and a short quoted span ('bnpl payments list --buyer NAME'). An id, a flag or
// "order:REF" is one word, so it is never broken either. Only a word wider
// than the whole line is split, where a path or a list would break (after a
// "/" or a ","), so that no line is wider than width.
func Wrap(text string, width int) string {
	if width <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = wrapOne(l, width)
	}
	return strings.Join(lines, "\n")
}

// wrapOne wraps one line under its hanging indent (hangOf).
func wrapOne(line string, width int) string {
	if visibleWidth(line) <= width {
		return line
	}
	return WrapLine(line, width, hangOf(line))
}

// WrapLine wraps one line at width as Wrap does, the lines it goes on over
// indented by hang (the column of a flag's description in help). A line
// that fits is returned as it is.
func WrapLine(line string, width, hang int) string {
	if visibleWidth(line) <= width {
		return line
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if hang > indent && hang <= width/2 {
		// The head (a label, a badge, a flag, with the spaces after it)
		// is kept as it is, and the rest wrapped beside it.
		if cut := offsetAt(line, hang); cut > 0 && cut < len(line) {
			return line[:cut] + wrapAt(line[cut:], width, hang, hang)
		}
	}
	return wrapAt(line, width, 0, hang)
}

// offsetAt is the byte offset in s where its visible text reaches col
// cells, escape sequences passed over; -1 when it never does.
func offsetAt(s string, col int) int {
	cells := 0
	for i := 0; i < len(s); {
		if cells == col {
			return i
		}
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		cells += displaywidth.Rune(r)
		i += size
	}
	return -1
}

// wrapAt wraps line, which starts at column col, its continuation lines
// indented by hang (or less, when hang would leave no room).
func wrapAt(line string, width, col, hang int) string {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if hang > width/2 {
		hang = min(indent, width/2)
	}
	var b strings.Builder
	b.WriteString(line[:indent])
	col += indent
	first := true
	us := units(line[indent:])
	if strings.HasSuffix(line, ": ") {
		us = promptTail(us)
	}
	for _, u := range us {
		for _, piece := range fitUnit(u, width-hang) {
			w := visibleWidth(piece)
			if !first && col+1+w > width {
				b.WriteString("\n" + strings.Repeat(" ", hang))
				col = hang
				first = true
			}
			if !first {
				b.WriteByte(' ')
				col++
			}
			b.WriteString(piece)
			col += w
			first = false
		}
	}
	// A prompt ends in a space, where the answer is typed.
	if trail := len(line) - len(strings.TrimRight(line, " ")); trail > 0 && strings.TrimSpace(line) != "" {
		b.WriteString(line[len(line)-trail:])
	}
	return b.String()
}

// promptTail keeps together the words a question ends with after its last
// "?" or "." (what to type: "Type yes to confirm:"), so that they read as
// one instruction on one line.
func promptTail(us []string) []string {
	for i := len(us) - 2; i >= 0; i-- {
		if strings.HasSuffix(us[i], "?") || strings.HasSuffix(us[i], ".") {
			if tail := us[i+1:]; spanWidth(tail) <= maxPromptTail {
				return append(us[:i+1:i+1], strings.Join(tail, " "))
			}
			break
		}
	}
	return us
}

// maxPromptTail is the widest instruction promptTail keeps on one line.
const maxPromptTail = 32

// hangLabels are the words whose message a wrapped line goes on under.
var hangLabels = []string{"error: ", "hint: ", "warning: ", "note: "}

// hangOf is where the lines a wrapped line goes on over start: under the
// message of a labelled line ("hint: run …"), under the text after a
// badge set off by two spaces ("LIVE  …"); an indented line (an item of a
// list: "  line 2: …") two further in, so that what it goes on with is not
// read as the next item; else at the margin.
func hangOf(line string) int {
	plain := stripEscapes(line)
	indent := len(plain) - len(strings.TrimLeft(plain, " "))
	for _, l := range hangLabels {
		if strings.HasPrefix(plain[indent:], l) {
			return indent + len(l)
		}
	}
	if i := strings.Index(plain[indent:], "  "); i > 0 && i <= 8 && !strings.Contains(plain[indent:indent+i], " ") {
		j := indent + i
		for j < len(plain) && plain[j] == ' ' {
			j++
		}
		return displaywidth.String(plain[:j])
	}
	if indent > 0 {
		return indent + 2
	}
	return 0
}

// fitUnit gives a unit as pieces no wider than room: the unit itself when
// it fits, else its words, and a word wider than room split where a path
// or a list breaks.
func fitUnit(u string, room int) []string {
	if visibleWidth(u) <= room || room <= 0 {
		return []string{u}
	}
	var out []string
	for _, w := range strings.Fields(u) {
		for visibleWidth(w) > room {
			head := breakWord(w, room)
			out = append(out, head)
			w = w[len(head):]
		}
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// breakWord is the longest head of w no wider than width that ends where
// a long word may break: after a "/" (a path or a URL, so that an id
// between two stays whole); else after a ",", ":", "&" or "?" (JSON, a
// query); else after a "-" not between two digits (never inside a date);
// else anywhere. A URL is never broken: it is the whole head, wider than
// width as it may be, so that a line holds all of it and a copy of the
// line is the URL (a terminal narrower than it folds it, but the text is
// one line).
func breakWord(w string, width int) string {
	if isURL(w) {
		return w
	}
	head := displaywidth.TruncateString(w, width, "")
	if head == "" {
		_, size := utf8.DecodeRuneInString(w)
		return w[:size]
	}
	for _, seps := range []string{"/", ",:&?", "-"} {
		for cut := len(head) - 1; cut > 0; cut-- {
			if strings.IndexByte(seps, head[cut]) < 0 {
				continue
			}
			if head[cut] == '-' && isDigitAt(head, cut-1) && isDigitAt(w, cut+1) {
				continue
			}
			return head[:cut+1]
		}
	}
	return head
}

// isURL reports whether a word is a URL (scheme://...), which a person
// copies whole.
func isURL(w string) bool {
	i := strings.Index(w, "://")
	if i <= 0 {
		return false
	}
	for _, r := range w[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func isDigitAt(s string, i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }

// units splits text into the runs that a line may break between: words,
// but an amount with its currency, a number with its unit, a bnpl command
// with its noun and verb, a flag with its value, a date with its time and a short quoted span are
// one unit each.
func units(text string) []string {
	words := strings.Fields(text)
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case quoteOpens(w) != 0:
			if end := quoteEnd(words, i); end > i && spanWidth(words[i:end+1]) <= maxQuotedUnit {
				out = append(out, strings.Join(words[i:end+1], " "))
				i = end
				continue
			}
		case isAmount(w) && i+1 < len(words) && isCurrency(words[i+1]),
			isCurrency(w) && i+1 < len(words) && isAmount(words[i+1]):
			out = append(out, w+" "+words[i+1])
			i++
			continue
		case isAmount(w) && i+1 < len(words) && isUnit(words[i+1]),
			isShortFlag(w) && i+1 < len(words) && isCommandWord(words[i+1]):
			out = append(out, w+" "+words[i+1])
			i++
			continue
		case isMethod(w) && i+1 < len(words) && strings.HasPrefix(words[i+1], "/"):
			out = append(out, w+" "+words[i+1])
			i++
			continue
		case isDate(w) && i+1 < len(words) && isClock(words[i+1]):
			out = append(out, w+" "+words[i+1])
			i++
			continue
		case flagValueEnd(words, i) > i:
			end := flagValueEnd(words, i)
			out = append(out, strings.Join(words[i:end+1], " "))
			i = end
			continue
		case strings.Trim(w, "`'\"(") == "bnpl":
			end := i
			for end+1 < len(words) && end-i < 2 && isCommandWord(words[end+1]) {
				end++
			}
			out = append(out, strings.Join(words[i:end+1], " "))
			i = end
			continue
		}
		out = append(out, w)
	}
	return out
}

// isMethod reports whether w is an HTTP method, which a line keeps with
// the path after it ("GET /api/v2/payments/…").
func isMethod(w string) bool {
	switch w {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD":
		return true
	}
	return false
}

// isUnit reports whether w is a unit a number is read with ("64 KiB",
// "4 minutes"), perhaps followed by punctuation.
func isUnit(w string) bool {
	switch strings.TrimRight(w, ".,;:)?!") {
	case "B", "KiB", "MiB", "GiB", "KB", "MB", "GB", "bytes", "ms", "seconds", "minutes", "hours", "days", "rows":
		return true
	}
	return false
}

// isShortFlag reports whether w is a one-letter flag ("-o", "(-L"), which
// a line keeps with the word after it, its value ("-o json").
func isShortFlag(w string) bool {
	w = strings.TrimLeft(w, "(`'\"")
	return len(w) == 2 && w[0] == '-' && (w[1] >= 'a' && w[1] <= 'z' || w[1] >= 'A' && w[1] <= 'Z')
}

// isDate reports whether w is a date as times are shown ("2026-11-27"),
// which a line keeps with the time of day after it.
func isDate(w string) bool {
	w = strings.TrimLeft(w, "(")
	return len(w) == 10 && w[4] == '-' && w[7] == '-' && isDigitAt(w, 0) && isDigitAt(w, 9)
}

// isClock reports whether w is a time of day ("22:35:53Z", "09:00").
func isClock(w string) bool {
	return len(w) >= 5 && w[2] == ':' && isDigitAt(w, 0) && isDigitAt(w, 1) && isDigitAt(w, 3) && isDigitAt(w, 4)
}

// flagValueEnd is, when words[i] is a flag followed by its value
// ("--reference-id 5b1e…", "--buyer layla", "--template '{{.id}} …'"),
// the index of the value's last word, which a line keeps with the flag;
// else -1. A flag that ends a clause ("--yes,") or is followed by another
// flag has none, and a value too wide is left to break on its own.
func flagValueEnd(words []string, i int) int {
	if i+1 >= len(words) {
		return -1
	}
	flag := strings.TrimLeft(words[i], "(`'\"")
	if !strings.HasPrefix(flag, "--") || len(flag) < 3 || strings.ContainsAny(flag, "=,;:.)`'\"") {
		return -1
	}
	end := i + 1
	switch {
	case strings.HasPrefix(words[end], "-"):
		return -1
	case quoteOpens(words[end]) != 0:
		end = quoteEnd(words, end)
	}
	if end < 0 || spanWidth(words[i:end+1]) > maxQuotedUnit {
		return -1
	}
	return end
}

// maxQuotedUnit is the widest quoted span kept on one line: a command or
// a value to copy, not a quoted sentence.
const maxQuotedUnit = 64

// quoteOpens is the quote a word opens a span with and does not close.
func quoteOpens(w string) byte {
	w = strings.TrimLeft(w, "(")
	if w == "" {
		return 0
	}
	switch q := w[0]; q {
	case '\'', '`', '"':
		rest := strings.TrimRight(w[1:], ".,;:)?!")
		if strings.IndexByte(rest, q) >= 0 {
			return 0 // closed in the same word
		}
		return q
	}
	return 0
}

// quoteEnd is the index of the word that closes the span words[i] opens,
// or -1.
func quoteEnd(words []string, i int) int {
	q := quoteOpens(words[i])
	for j := i + 1; j < len(words); j++ {
		if strings.IndexByte(strings.TrimRight(words[j], ".,;:)?!"), q) >= 0 {
			return j
		}
	}
	return -1
}

func spanWidth(words []string) int {
	n := len(words) - 1
	for _, w := range words {
		n += visibleWidth(w)
	}
	return n
}

// isAmount reports whether w is a number as amounts are shown: digits
// with an optional sign and point ("200.00", "-5.000").
func isAmount(w string) bool {
	w = strings.TrimLeft(w, "(-+")
	digits, dot := 0, false
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// isCurrency reports whether w is a currency code, perhaps followed by
// punctuation ("AED,", "KWD)").
func isCurrency(w string) bool {
	w = strings.TrimRight(w, ".,;:)?!")
	if len(w) != 3 {
		return false
	}
	for _, r := range w {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// isCommandWord reports whether w may be a noun or verb of a bnpl
// command: lower-case letters and hyphens.
func isCommandWord(w string) bool {
	w = strings.TrimRight(w, "`'\")")
	if w == "" {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r == '-') {
			return false
		}
	}
	return !strings.HasPrefix(w, "-")
}

// visibleWidth is how many cells s takes on a terminal: its escape
// sequences take none.
func visibleWidth(s string) int {
	return displaywidth.String(stripEscapes(s))
}

// stripEscapes drops the CSI sequences (colours, "erase line") from s.
func stripEscapes(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// wrappedWriter is stderr on a terminal: each line written through it is
// wrapped as Wrap does at the terminal's width, so that no notice, error,
// hint or question is broken mid-word by the terminal. A carriage return
// starts the line again (a progress line drawn in place). Each write is
// taken to start a line: a question's answer, typed and echoed by the
// terminal, ends the line the question was on.
type wrappedWriter struct {
	w     io.Writer
	width func() int
	// hang, when set, is where every wrapped line goes on (a banner's
	// values); else each line's own hanging indent (hangOf).
	hang *int
}

// WrapWriter wraps each line written to w as Wrap does at width(), but
// with its continuation lines at column hang: for a block of "label
// value" lines whose values start at hang (the banner of sandbox serve).
func WrapWriter(w io.Writer, width func() int, hang int) io.Writer {
	return &wrappedWriter{w: w, width: width, hang: &hang}
}

func (ww *wrappedWriter) Write(p []byte) (int, error) {
	width := ww.width()
	if width <= 0 || !ww.needsWrap(p, width) {
		return ww.w.Write(p)
	}
	var out strings.Builder
	s := string(p)
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		seg := s
		if i >= 0 {
			seg = s[:i]
		}
		if ww.hang != nil {
			out.WriteString(WrapLine(seg, width, *ww.hang))
		} else {
			out.WriteString(Wrap(seg, width))
		}
		if i < 0 {
			break
		}
		out.WriteByte(s[i])
		s = s[i+1:]
	}
	if _, err := io.WriteString(ww.w, out.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// needsWrap reports whether a line of p is wider than width; most writes
// are short and pass through untouched.
func (ww *wrappedWriter) needsWrap(p []byte, width int) bool {
	if len(p) <= width {
		return false
	}
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '\n' || p[i] == '\r' {
			if i-start > width && visibleWidth(string(p[start:i])) > width {
				return true
			}
			start = i + 1
		}
	}
	return false
}

// Truncate cuts s to width display cells, ending in "…" when cut: for a
// line drawn in place, which must not wrap.
func Truncate(s string, width int) string { return truncate(s, width) }
