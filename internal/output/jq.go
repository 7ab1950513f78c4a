package output

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/itchyny/gojq"
)

const jqHint = "check the expression against the jq manual (https://jqlang.org/manual/) and quote it in single quotes for the shell"

// compileJQ parses and compiles --jq once, before anything is sent, so a
// typo costs nothing but an exit code 2.
func compileJQ(expr string) (*gojq.Code, error) {
	query, err := gojq.Parse(expr)
	if err != nil {
		return nil, &Error{Message: "invalid --jq expression", Err: err, HintText: jqHint, Code: 2}
	}
	code, err := gojq.Compile(query)
	if err != nil {
		return nil, &Error{Message: "invalid --jq expression", Err: err, HintText: jqHint, Code: 2}
	}
	return code, nil
}

// runJQ writes each result on its own line. Strings are written raw, as
// `jq -r` does, because the usual reason to filter is to feed one field to
// another command; other values are JSON, indented on a terminal and compact
// when piped, like -o json. gojq, like its JSON encoder, writes object keys
// sorted.
func (p *Printer) runJQ(w *bytes.Buffer, input any) error {
	iter := p.jq.Run(input)
	for {
		v, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := v.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return &Error{Message: "--jq", Err: err, HintText: "the expression failed on this data; try it with --jq . to see the input", Code: 1}
		}
		if s, isString := v.(string); isString {
			w.WriteString(s)
			w.WriteByte('\n')
			continue
		}
		compact, err := gojq.Marshal(v)
		if err != nil {
			return &Error{Message: "--jq", Err: err, Code: 1}
		}
		if p.pretty() {
			if err := json.Indent(w, compact, "", "  "); err != nil {
				return &Error{Message: "--jq", Err: err, Code: 1}
			}
		} else {
			w.Write(compact)
		}
		w.WriteByte('\n')
	}
}
