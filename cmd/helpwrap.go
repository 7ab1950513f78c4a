package cmd

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// wrapHelp has help fit the terminal: cobra renders it as usual, and every
// line wider than the terminal (80 columns when stdout is not one) is
// wrapped between words by output.WrapLine, its continuation indented
// under the text it continues (a flag's or a command's description, or the
// line's own indent). An example too wide goes on over more lines with
// shell continuations (" \"), so that it still pastes as one command. On a
// terminal, help goes through the pager as other long output does (less
// -F prints one that fits the screen as it is).
func wrapHelp(f *cmdutil.Factory, help func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(c *cobra.Command, args []string) {
		var buf bytes.Buffer
		c.SetOut(&buf)
		help(c, args)
		c.SetOut(nil)
		text := WrapHelpText(buf.String(), f.IO.TerminalWidth())
		// A pager that cannot start leaves help on the terminal.
		_ = f.IO.StartPager()
		_, _ = f.IO.Out.Write([]byte(text))
		f.IO.StopPager()
	}
}

// WrapHelpText wraps the lines of a rendered help wider than width. A
// line of prose that wraps carries its last words into the next line of
// the same paragraph, so a paragraph reads as one, not as long and short
// lines in turn.
func WrapHelpText(text string, width int) string {
	if width < 40 {
		width = 40
	}
	var b strings.Builder
	examples := false
	var carry string // the words a wrapped prose line left over
	carryIndent := 0
	flush := func() {
		if carry != "" {
			b.WriteString(wrapLine(strings.Repeat(" ", carryIndent)+carry, width) + "\n")
			carry = ""
		}
	}
	lines := strings.SplitAfter(text, "\n")
	commandCol := 0 // where the descriptions of a list of commands start
	usage := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		body := strings.TrimSuffix(line, "\n")
		if isHelpHeading(body) {
			examples = body == "Examples:"
			usage = body == "Usage:"
			commandCol = 0
			if strings.HasSuffix(body, "Commands:") {
				commandCol = descriptionColumn(lines[i+1:])
			}
		}
		indent := len(body) - len(strings.TrimLeft(body, " "))
		command := commandCol > 0 && indent > 0
		// A line starting "- " right after a wrapped line of prose goes on
		// with it ("(--input, or\n- for stdin)"), unless that line
		// introduced a list with a colon.
		prose := !examples && !command && (isProse(body) || carry != "" && !strings.HasSuffix(carry, ":") && isListItem(body))
		if carry != "" {
			if prose && indent == carryIndent {
				body = body[:indent] + carry + " " + body[indent:]
				line = body + "\n"
				carry = ""
			} else {
				flush()
			}
		}
		if examples {
			text, more := exampleText(lines[i:], width)
			b.WriteString(text)
			i += more
			continue
		}
		if usage && indent > 0 && utf8.RuneCountInString(body) > width {
			b.WriteString(wrapUsage(body, width) + "\n")
			continue
		}
		if utf8.RuneCountInString(body) <= width {
			b.WriteString(line)
			continue
		}
		wrapped := wrapLine(body, width)
		if command && commandCol <= width/2 {
			// The longest name has one space after it, not the two that
			// wrapLine looks for.
			wrapped = output.WrapLine(body, width, commandCol)
		}
		if prose && strings.HasSuffix(line, "\n") {
			if cut := strings.LastIndexByte(wrapped, '\n'); cut >= 0 {
				carry, carryIndent = strings.TrimSpace(wrapped[cut+1:]), indent
				wrapped = wrapped[:cut]
			}
		}
		b.WriteString(wrapped)
		if strings.HasSuffix(line, "\n") {
			b.WriteByte('\n')
		}
	}
	flush()
	return b.String()
}

// descriptionColumn is where the descriptions start in the list of
// commands that lines begin with (up to a blank line): cobra pads every
// name to the longest, which has a single space after it.
func descriptionColumn(lines []string) int {
	col := 0
	for _, line := range lines {
		body := strings.TrimRight(line, "\n")
		if strings.TrimSpace(body) == "" {
			break
		}
		indent := len(body) - len(strings.TrimLeft(body, " "))
		if i := strings.Index(body[indent:], "  "); i > 0 {
			j := indent + i
			for j < len(body) && body[j] == ' ' {
				j++
			}
			col = max(col, j)
		}
	}
	return col
}

// isProse reports whether a help line is running text: not empty, not a
// heading, a list item, a flag or a command with its description.
func isProse(line string) bool {
	t := strings.TrimLeft(line, " ")
	if t == "" || isHelpHeading(line) || isListItem(line) {
		return false
	}
	return !strings.Contains(t, "  ")
}

// isListItem reports whether a help line starts with a list marker.
func isListItem(line string) bool {
	t := strings.TrimLeft(line, " ")
	return strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "• ")
}

// isHelpHeading reports whether a help line is a section title such as
// "Global Flags:": unindented, ending in a colon, a few words without
// punctuation. A line of prose that happens to end in a colon is not one.
func isHelpHeading(line string) bool {
	if line == "" || line[0] == ' ' || !strings.HasSuffix(line, ":") {
		return false
	}
	title := strings.TrimSuffix(line, ":")
	return len(strings.Fields(title)) <= 3 && !strings.ContainsAny(title, ".,;:()'\"`")
}

// wrapLine wraps one line, continuation lines under its hanging indent:
// a flag's or a command's description, else the line's own indent.
func wrapLine(line string, width int) string {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	hang := indent
	// A flag or command line: "  -o, --output string   description"; its
	// description starts after the first run of two or more spaces.
	if i := strings.Index(line[indent:], "  "); i > 0 {
		j := indent + i
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if j < len(line) && j <= width/2 {
			hang = j
		}
	}
	return output.WrapLine(line, width, hang)
}

// exampleText is the example line lines[0] holds, wrapped to width, and
// how many more lines of it that took: a command that goes on over lines
// is wrapped as one when a line of it is too wide, so that no flag is left
// alone on a line of its own.
func exampleText(lines []string, width int) (text string, more int) {
	line := lines[0]
	body := strings.TrimSuffix(line, "\n")
	if strings.HasSuffix(body, " \\") {
		if joined, n := continuedExample(lines, width); n > 0 {
			body, line, more = joined, joined+"\n", n
		}
	}
	if utf8.RuneCountInString(body) <= width {
		return line, more
	}
	text = wrapExample(body, width)
	if strings.HasSuffix(line, "\n") {
		text += "\n"
	}
	return text, more
}

// continuedExample joins an example that goes on over lines (each but
// the last ending in " \\") into one line, when one of its lines is wider
// than width; n is how many lines after the first it took, 0 when it was
// left as it is.
func continuedExample(lines []string, width int) (joined string, n int) {
	last := 0
	wide := false
	for j, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		wide = wide || utf8.RuneCountInString(body) > width
		last = j
		if !strings.HasSuffix(body, " \\") {
			break
		}
	}
	if !wide || last == 0 {
		return "", 0
	}
	first := strings.TrimSuffix(lines[0], "\n")
	parts := []string{strings.TrimSuffix(first, " \\")}
	for _, l := range lines[1 : last+1] {
		parts = append(parts, strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(l, "\n"), " \\")))
	}
	joined = strings.Join(parts, " ")
	if strings.HasSuffix(strings.TrimSuffix(lines[last], "\n"), " \\") {
		joined += " \\" // the command goes on past the end of the help
	}
	return joined, last
}

// wrapUsage wraps a usage line wider than width as a synopsis: its lines
// go on under the command's first argument, and an optional part ("[--path
// GLOB]") or a group of choices stays whole on one line.
func wrapUsage(line string, width int) string {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	parts := usageParts(line[indent:])
	// The command's words: up to the first part that is not a plain word.
	hang := indent
	for _, p := range parts {
		if !isCommandWord(p) && p != "bnpl" {
			break
		}
		hang += len(p) + 1
	}
	if hang > width/2 {
		hang = indent + 4
	}
	parts = openWide(parts, width-hang)
	var b strings.Builder
	b.WriteString(line[:indent])
	col := indent
	for i, p := range parts {
		n := utf8.RuneCountInString(p)
		switch {
		case i > 0 && col+1+n > width:
			b.WriteString("\n" + strings.Repeat(" ", hang))
			col = hang
		case i > 0:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(p)
		col += n
	}
	return b.String()
}

// openWide splits each part wider than room into the parts within its
// brackets, the first keeping the opening bracket and the last the
// closing one, a flag kept with its value.
func openWide(parts []string, room int) []string {
	var out []string
	for _, p := range parts {
		if utf8.RuneCountInString(p) <= room || len(p) < 2 || !strings.ContainsAny(p[:1], "[(") {
			out = append(out, p)
			continue
		}
		inner := usageParts(p[1 : len(p)-1])
		if len(inner) < 2 {
			out = append(out, p)
			continue
		}
		inner = flagsWithValues(inner)
		inner[0] = p[:1] + inner[0]
		inner[len(inner)-1] += p[len(p)-1:]
		out = append(out, openWide(inner, room)...)
	}
	return out
}

// usageParts splits a usage line at the spaces outside brackets and
// parentheses, so that "[--limit N | --all]" is one part.
func usageParts(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(', '<':
			depth++
		case ']', ')', '>':
			depth = max(depth-1, 0)
		case ' ':
			if depth == 0 {
				if i > start {
					parts = append(parts, s[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(s) {
		parts = append(parts, s[start:])
	}
	return parts
}

// exampleIndent is how much further than its command an example's
// continuation lines are indented.
const exampleIndent = 2

// wrapExample lays an example wider than width over more lines: a command
// is broken between its shell words (a quoted argument is one word), each
// line but the last ending in " \" and the next indented under it, so it
// still pastes as one command; a comment ("# …") goes on as comment lines.
func wrapExample(line string, width int) string {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	pad := line[:indent]
	body := line[indent:]
	if strings.HasPrefix(body, "#") {
		text := strings.TrimSpace(strings.TrimPrefix(body, "#"))
		wrapped := output.WrapLine(text, width-indent-2, 0)
		return pad + "# " + strings.ReplaceAll(wrapped, "\n", "\n"+pad+"# ")
	}
	// A line that already goes on (" \\" at its end) keeps its ending,
	// and one that is itself a continuation keeps its indent.
	goesOn := strings.HasSuffix(body, " \\")
	body = strings.TrimSuffix(body, " \\")
	next := pad + strings.Repeat(" ", exampleIndent)
	if indent > exampleIndent {
		next = pad
	}
	words := commandsWhole(flagsWithValues(shellWords(body)))
	var b strings.Builder
	b.WriteString(pad)
	col := indent
	for i, w := range words {
		n := utf8.RuneCountInString(w)
		// The room a word needs: itself, and " \\" after it unless it
		// ends a command.
		need := n
		if i < len(words)-1 || goesOn {
			need += 2
		}
		if i > 0 && col+1+need > width {
			b.WriteString(" \\\n" + next)
			col = len(next)
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += n
	}
	if goesOn {
		b.WriteString(" \\")
	}
	return b.String()
}

// flagsWithValues joins each flag to the value after it ("--seed 7"), so
// that a wrapped example never leaves a flag at the end of a line and its
// value on the next.
func flagsWithValues(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") && len(w) > 1 && !strings.Contains(w, "=") &&
			i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") && !strings.ContainsAny(words[i+1][:1], "|<>") {
			w += " " + words[i+1]
			i++
		}
		out = append(out, w)
	}
	return out
}

// commandsWhole joins each "bnpl" to the noun and verb after it ("bnpl
// disputes approve"), so that a wrapped example never parts a command
// over a continuation.
func commandsWhole(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "bnpl" {
			for n := 0; n < 2 && i+1 < len(words) && isCommandWord(words[i+1]); n++ {
				w += " " + words[i+1]
				i++
			}
		}
		out = append(out, w)
	}
	return out
}

// isCommandWord reports whether w may be a noun or verb of a command:
// lower-case letters and hyphens, not a flag.
func isCommandWord(w string) bool {
	if w == "" || w[0] == '-' {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r == '-') {
			return false
		}
	}
	return true
}

// shellWords splits a command line into its words as a shell would part
// them: at spaces outside quotes. The words keep their quotes, so that
// joined again they are the same command.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}
