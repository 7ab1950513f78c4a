package output

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// ErrorDetailer is implemented by errors that carry structured facts about
// a failed request, so that `-o json` can hand them to scripts on stderr.
// The API client's error type implements it with these keys (others are
// passed through too, after them; every key is written in snake_case
// whatever the detailer spells):
//
//	"status"     int             HTTP status
//	"error_type" string          the service's errorType, e.g. "bad_data"
//	"errors"     any             the service's field errors
//	"method"     string          request method
//	"path"       string          request path, without query secrets
//	"response"   any             the service's answer: its JSON, or its text
//
// The keys "error", "hint" and "exit_code" belong to PrintError and are
// never taken from the details.
type ErrorDetailer interface {
	ErrorDetails() map[string]any
}

// Error is this package's own error: a message, a hint saying what to do
// next, and the exit code (2 for bad output options, 1 otherwise).
type Error struct {
	Message  string
	HintText string
	Code     int
	Err      error
}

func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return e.Err.Error()
	}
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Hint() string  { return e.HintText }
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) ExitCode() int {
	if e.Code == 0 {
		return 1
	}
	return e.Code
}

// detailOrder puts the documented keys first, so the object reads the same
// way every time.
var detailOrder = []string{"error_type", "status", "errors", "method", "path"}

// PrintError reports err on stderr. Once ios.ScriptErrors is in force
// (-o json or jsonl on a stderr that is not a terminal), it writes exactly
// one JSON object and a newline, and nothing else; otherwise it writes
// "error: …" and, when the error has one, "hint: …" for a person, followed
// by the JSON object when alsoJSON is set (-o json with --debug, where
// stderr is a log anyway).
func PrintError(ios *IOStreams, err error, alsoJSON bool) {
	if err == nil {
		return
	}
	// The last guard of every error: whatever path a key, a URL's password
	// or a terminal escape took into an error (a key typed as an id, a
	// server's words), it is shown masked and inert.
	var guard *secret.Masker
	msg := guard.Text(err.Error())
	hint := guard.Text(errorHint(err))

	if ios.report != nil {
		line := append(guard.Bytes(errorJSON(err, msg, hint)), '\n')
		_, _ = ios.report.Write(line)
		return
	}
	cs := ios.ErrColors()
	var b strings.Builder
	b.WriteString(cs.Red("error:"))
	b.WriteString(" ")
	b.WriteString(msg)
	b.WriteString("\n")
	if hint != "" {
		b.WriteString("hint: ")
		b.WriteString(hint)
		b.WriteString("\n")
	}
	if alsoJSON {
		b.Write(guard.Bytes(errorJSON(err, msg, hint)))
		b.WriteString("\n")
	}
	// One write, so concurrent notices cannot split the report.
	_, _ = io.WriteString(ios.ErrOut, b.String())
}

// PrintWarning reports something a person must know whatever --quiet says
// (a config file others can read): "warning: …" on stderr, or under
// ScriptErrors one JSON object {"warning": …, "hint": …} on its own line.
func PrintWarning(ios *IOStreams, msg, hint string) {
	var guard *secret.Masker
	msg, hint = guard.Text(msg), guard.Text(hint)
	if ios.report != nil {
		var buf bytes.Buffer
		buf.WriteByte('{')
		writeMember(&buf, "warning", msg, true)
		if hint != "" {
			writeMember(&buf, "hint", hint, false)
		}
		buf.WriteString("}\n")
		_, _ = ios.report.Write(buf.Bytes())
		return
	}
	var b strings.Builder
	b.WriteString(ios.ErrColors().Yellow("warning:") + " " + msg + "\n")
	if hint != "" {
		b.WriteString("hint: " + hint + "\n")
	}
	_, _ = io.WriteString(ios.ErrOut, b.String())
}

func errorHint(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	return ""
}

func errorExitCode(err error) int {
	var c interface{ ExitCode() int }
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	if errors.Is(err, context.Canceled) {
		return 130 // as cmdutil.ExitCode says
	}
	return 1
}

func errorJSON(err error, msg, hint string) []byte {
	var buf bytes.Buffer
	buf.WriteByte('{')
	writeMember(&buf, "error", msg, true)
	if hint != "" {
		writeMember(&buf, "hint", hint, false)
	}
	writeMember(&buf, "exit_code", errorExitCode(err), false)

	var d ErrorDetailer
	if errors.As(err, &d) {
		details := snakeKeys(d.ErrorDetails())
		seen := map[string]bool{"error": true, "hint": true, "exit_code": true}
		for _, k := range detailOrder {
			if v, ok := details[k]; ok {
				writeMember(&buf, k, v, false)
				seen[k] = true
			}
		}
		rest := make([]string, 0, len(details))
		for k := range details {
			if !seen[k] {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		for _, k := range rest {
			writeMember(&buf, k, details[k], false)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

func writeMember(buf *bytes.Buffer, key string, value any, first bool) {
	if !first {
		buf.WriteByte(',')
	}
	buf.Write(marshalNoEscape(key))
	buf.WriteByte(':')
	buf.Write(marshalNoEscape(value))
}

// marshalNoEscape keeps "<", ">" and "&" readable: the output goes to a
// terminal or a script, never into HTML.
func marshalNoEscape(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		buf.Reset()
		_ = enc.Encode(fmt.Sprint(v))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// snakeKeys spells every key of details in snake_case (errorType becomes
// error_type), so the object has one style whoever filled it. A key that
// is already there in snake_case wins.
func snakeKeys(details map[string]any) map[string]any {
	out := make(map[string]any, len(details))
	for k, v := range details {
		if sk := snakeCase(k); sk == k {
			out[k] = v
		}
	}
	for k, v := range details {
		sk := snakeCase(k)
		if _, ok := out[sk]; !ok {
			out[sk] = v
		}
	}
	return out
}

func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r - 'A' + 'a')
		case r == '-' || r == ' ':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
