package cmd

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

func TestWrapHelpText(t *testing.T) {
	in := "Flags:\n      --buyer string      find the payments of a buyer by name, or part of an email or phone (every status)\n" +
		"A paragraph of prose that goes on well past the edge of an eighty column terminal window, see.\n" +
		"Examples:\n  bnpl payments list --buyer 'a name that is long' --status authorized --status closed --all\n"
	want := "Flags:\n      --buyer string      find the payments of a buyer by name, or part of an\n" +
		"                          email or phone (every status)\n" +
		"A paragraph of prose that goes on well past the edge of an eighty column\nterminal window, see.\n" +
		"Examples:\n  bnpl payments list --buyer 'a name that is long' --status authorized \\\n    --status closed --all\n"
	if got := WrapHelpText(in, 80); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// A word longer than the line is split, so that no line is wider.
	long := strings.Repeat("x", 90)
	if got := WrapHelpText("see "+long+" here\n", 80); got != "see\n"+long[:80]+"\n"+long[80:]+" here\n" {
		t.Errorf("a long word: %q", got)
	}
}

// Every command's help fits 80 columns off a terminal, examples too (with
// shell continuations), and wrapping loses or breaks no word.
func TestHelpFitsEightyColumns(t *testing.T) {
	f, out, _ := testFactory(t)
	f.IO.SetTerminalWidth(80)
	root := newRoot(f, "")
	var paths [][]string
	VisitShown(root, func(_ *cobra.Command, path []string) { paths = append(paths, path) })
	for _, p := range paths {
		out.Reset()
		if code := Run(context.Background(), f, append(append([]string(nil), p...), "--help")); code != 0 {
			t.Fatalf("%v --help: exit %d", p, code)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if utf8.RuneCountInString(line) > 80 {
				t.Errorf("bnpl %s --help: a line of %d columns: %q", strings.Join(p, " "), utf8.RuneCountInString(line), line)
			}
		}
		wrapped := out.String()
		out.Reset()
		f.IO.SetTerminalWidth(100000)
		_ = Run(context.Background(), f, append(append([]string(nil), p...), "--help"))
		f.IO.SetTerminalWidth(80)
		if a, b := helpWords(out.String()), helpWords(wrapped); a != b {
			t.Errorf("bnpl %s --help: wrapping changed the words", strings.Join(p, " "))
		}
	}
}

// A wrapped line of prose carries its last words into the next line of the
// paragraph: no one-word line in the middle of a paragraph.
func TestWrapHelpTextReflowsParagraphs(t *testing.T) {
	in := "--status may be given more than once (or as a comma-separated list): the sets are\n" +
		"walked one after the other, every page of each.\n" +
		"\n" +
		"Flags:\n" +
		"  -L, --limit int   at most this many\n"
	got := WrapHelpText(in, 80)
	want := "--status may be given more than once (or as a comma-separated list): the sets\n" +
		"are walked one after the other, every page of each.\n" +
		"\n" +
		"Flags:\n" +
		"  -L, --limit int   at most this many\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// No command's help at 80 columns leaves the end of a wrapped line alone
// in the middle of a paragraph: a short line of prose is followed by a
// blank line, a heading or an indented line, never by more of the
// paragraph whose first word would have fitted after it. A line of prose
// ending in ":" or a next line starting "- " is still prose, not a heading
// or a list, so a wrapped line's words are carried into it.
func TestHelpProseIsFilled(t *testing.T) {
	eachHelpAt80(t, func(path []string, help string) {
		prev := ""
		for _, line := range strings.Split(help, "\n") {
			if line == "" || line[0] == ' ' || isHelpHeading(line) {
				prev = ""
				continue
			}
			if prev != "" {
				first := strings.Fields(line)[0]
				if utf8.RuneCountInString(prev) < 40 && utf8.RuneCountInString(prev)+1+utf8.RuneCountInString(first) <= 80 {
					t.Errorf("bnpl %s --help: %q is a line alone, though %q fits after it", strings.Join(path, " "), prev, first)
				}
			}
			prev = line
		}
	})
}

// eachHelpAt80 calls check with the help of every command that is not
// hidden, written for a terminal 80 columns wide, and the command's path.
func eachHelpAt80(t *testing.T, check func(path []string, help string)) {
	t.Helper()
	f, out, _ := testFactory(t)
	f.IO.SetTerminalWidth(80)
	root := newRoot(f, "")
	VisitShown(root, func(_ *cobra.Command, path []string) {
		out.Reset()
		if code := Run(context.Background(), f, append(append([]string(nil), path...), "--help")); code != 0 {
			t.Fatalf("%v --help: exit %d", path, code)
		}
		check(path, out.String())
	})
}

func TestWrapHelpTextHeadings(t *testing.T) {
	in := "A paragraph whose first line runs to the edge and past it, and then over it (--input, or\n" +
		"- for stdin), a line that ends with a colon but is prose all the same, as its length says:\n" +
		"the rest.\n" +
		"Global Flags:\n"
	want := "A paragraph whose first line runs to the edge and past it, and then over it\n" +
		"(--input, or - for stdin), a line that ends with a colon but is prose all the\n" +
		"same, as its length says: the rest.\n" +
		"Global Flags:\n"
	if got := WrapHelpText(in, 80); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// helpWords are the words of a help, but the shell continuations (" \\")
// that examples are wrapped with.
func helpWords(help string) string {
	var words []string
	for _, w := range strings.Fields(help) {
		if w != "\\" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// A wrapped example keeps a bnpl command with its noun and verb on one
// line: `xargs bnpl disputes \` then `approve` reads as two commands.
func TestWrapExampleKeepsCommandsWhole(t *testing.T) {
	for _, line := range []string{
		"  bnpl disputes list --status new -o json --jq '.[].id' | xargs bnpl disputes approve --yes",
		"  bnpl sandbox export --file state.yaml && bnpl sandbox reset --yes && bnpl sandbox seed --file state.yaml",
	} {
		got := wrapExample(line, 80)
		for _, l := range strings.Split(got, "\n") {
			if utf8.RuneCountInString(l) > 80 {
				t.Errorf("a line of %d columns: %q", utf8.RuneCountInString(l), l)
			}
			if f := strings.Fields(strings.TrimSuffix(l, " \\")); len(f) > 0 && (f[len(f)-1] == "bnpl" || f[0] == "approve" || f[0] == "sandbox") {
				t.Errorf("a command parted:\n%s", got)
			}
		}
		if strings.Join(strings.Fields(strings.ReplaceAll(got, " \\\n", " ")), " ") != strings.Join(strings.Fields(line), " ") {
			t.Errorf("words changed:\n%s", got)
		}
	}
}

// The longest command name is followed by one space only (cobra pads the
// names to it): its description still goes on under the others'.
func TestWrapHelpTextLongestCommand(t *testing.T) {
	in := "Available Commands:\n" +
		"  api              Send any request to the service with the profile's key and region\n" +
		"  dispute-webhooks Register, list, replace and remove dispute webhooks (live only)\n\n"
	want := "Available Commands:\n" +
		"  api              Send any request to the service with the profile's key and\n" +
		"                   region\n" +
		"  dispute-webhooks Register, list, replace and remove dispute webhooks (live\n" +
		"                   only)\n\n"
	if got := WrapHelpText(in, 80); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// No command's help at 80 columns has a slip a reader trips on: an
// example's continuation line holding one flag alone though the next
// fitted beside it; prose at the margin straight after an indented list,
// as if it were the list's last item; a bnpl command, or a short flag and
// its value, parted over two lines; a usage line going on at the indent of
// a new usage line.
func TestHelpHasNoSlips(t *testing.T) {
	eachHelpAt80(t, func(path []string, help string) {
		for _, slip := range helpSlips(help, 80) {
			t.Errorf("bnpl %s --help: %s", strings.Join(path, " "), slip)
		}
	})
}

// helpSlips lists the slips of a help wrapped at width (see
// TestHelpHasNoSlips).
func helpSlips(help string, width int) []string {
	var slips []string
	lines := strings.Split(help, "\n")
	section := "" // the heading the line is under; "" for the description
	for i, line := range lines {
		if isHelpHeading(line) {
			section = line
			continue
		}
		var next string
		if i+1 < len(lines) {
			next = lines[i+1]
		}
		body := strings.TrimSpace(strings.TrimSuffix(line, " \\"))
		nextWords := strings.Fields(next)
		switch {
		case section == "Examples:" && strings.HasSuffix(line, " \\") && len(nextWords) > 0:
			units := commandsWhole(flagsWithValues(shellWords(body)))
			nextUnit := commandsWhole(flagsWithValues(shellWords(strings.TrimSpace(strings.TrimSuffix(next, " \\")))))[0]
			if len(units) == 1 && utf8.RuneCountInString(strings.TrimSuffix(line, " \\"))+1+utf8.RuneCountInString(nextUnit)+2 <= width {
				slips = append(slips, fmt.Sprintf("%q is alone on its line, though %q fits after it", body, nextUnit))
			}
		case section == "" && line != "" && line[0] != ' ' && i > 0 && strings.HasPrefix(lines[i-1], " ") && strings.TrimSpace(lines[i-1]) != "":
			slips = append(slips, fmt.Sprintf("%q runs on from the indented lines above it", line))
		case section == "Usage:" && line != "" && !strings.HasPrefix(line, "  bnpl") && !strings.HasPrefix(line, "    "):
			slips = append(slips, fmt.Sprintf("usage line %q goes on at the indent of a new one", line))
		}
		if len(nextWords) == 0 || section == "Examples:" {
			continue
		}
		words := strings.Fields(body)
		if len(words) == 0 {
			continue
		}
		last, first := strings.Trim(words[len(words)-1], "`'\"("), strings.Trim(nextWords[0], "`'\")")
		switch {
		case last == "bnpl" && isCommandWord(first):
			slips = append(slips, fmt.Sprintf("a command parted: %q / %q", body, strings.TrimSpace(next)))
		case len(last) == 2 && last[0] == '-' && last[1] != '-' && !strings.HasPrefix(first, "-") && isCommandWord(first):
			slips = append(slips, fmt.Sprintf("a flag parted from its value: %q / %q", body, strings.TrimSpace(next)))
		}
	}
	return slips
}

// An example that goes on over lines is wrapped as one command when a line
// of it is too wide, and a usage line goes on under the command's first
// argument with an optional part kept whole.
func TestWrapHelpTextContinuedExampleAndUsage(t *testing.T) {
	in := "Usage:\n" +
		"  bnpl sandbox logs [--follow] [--limit N | --all] [--status 4xx|5xx|N] [--path GLOB] [--since T] [flags]\n" +
		"\n" +
		"Examples:\n" +
		"  bnpl sandbox serve --ae-addr 0.0.0.0:8700 --sa-addr 0.0.0.0:8701 --open-control \\\n" +
		"    --allowed-host bnpl-sandbox --public-url ae=http://bnpl-sandbox:8700 --public-url sa=http://bnpl-sandbox:8701\n" +
		"  bnpl sandbox serve --state :memory: --ae-addr 127.0.0.1:0 \\\n" +
		"    --sa-addr 127.0.0.1:0\n"
	want := "Usage:\n" +
		"  bnpl sandbox logs [--follow] [--limit N | --all] [--status 4xx|5xx|N]\n" +
		"                    [--path GLOB] [--since T] [flags]\n" +
		"\n" +
		"Examples:\n" +
		"  bnpl sandbox serve --ae-addr 0.0.0.0:8700 --sa-addr 0.0.0.0:8701 \\\n" +
		"    --open-control --allowed-host bnpl-sandbox \\\n" +
		"    --public-url ae=http://bnpl-sandbox:8700 \\\n" +
		"    --public-url sa=http://bnpl-sandbox:8701\n" +
		"  bnpl sandbox serve --state :memory: --ae-addr 127.0.0.1:0 \\\n" +
		"    --sa-addr 127.0.0.1:0\n"
	if got := WrapHelpText(in, 80); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
