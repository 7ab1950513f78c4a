package cmd

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// wrapHelp has help fit the terminal: cobra renders it as usual, and every
// line wider than the terminal (80 columns when stdout is not one) is
// wrapped between words, its continuation indented under the text it
// continues (a flag's or a command's description, or the line's own
// indent). Words are never broken, and the examples are left whole, since
// they are copied as they are.
func wrapHelp(f *cmdutil.Factory, help func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(c *cobra.Command, args []string) {
		var buf bytes.Buffer
		c.SetOut(&buf)
		help(c, args)
		c.SetOut(nil)
		_, _ = f.IO.Out.Write([]byte(WrapHelpText(buf.String(), f.IO.TerminalWidth())))
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
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if isHelpHeading(body) {
			examples = body == "Examples:"
		}
		indent := len(body) - len(strings.TrimLeft(body, " "))
		// A line starting "- " right after a wrapped line of prose goes on
		// with it ("(--input, or\n- for stdin)"), unless that line
		// introduced a list with a colon.
		prose := !examples && (isProse(body) || carry != "" && !strings.HasSuffix(carry, ":") && isListItem(body))
		if carry != "" {
			if prose && indent == carryIndent {
				body = body[:indent] + carry + " " + body[indent:]
				line = body + "\n"
				carry = ""
			} else {
				flush()
			}
		}
		if examples || utf8.RuneCountInString(body) <= width {
			b.WriteString(line)
			continue
		}
		wrapped := wrapLine(body, width)
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

// wrapLine wraps one line, continuation lines under its hanging indent.
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
	var b strings.Builder
	col := 0
	lineStart := true
	// The head (up to the hanging indent) is kept as it is.
	head := line[:hang]
	b.WriteString(head)
	col = utf8.RuneCountInString(head)
	for _, word := range strings.Fields(line[hang:]) {
		n := utf8.RuneCountInString(word)
		if !lineStart && col+1+n > width {
			b.WriteString("\n" + strings.Repeat(" ", hang))
			col = hang
			lineStart = true
		}
		if !lineStart {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
		lineStart = false
	}
	return b.String()
}
