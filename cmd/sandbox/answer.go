package sandbox

import (
	"encoding/json"
	"fmt"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// decodeAnswer reads the sandbox's answer raw into v; what names what it
// should be in the error of one that is not ("a fixture").
func decodeAnswer(raw json.RawMessage, v any, what string) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("sandbox answered something that is not %s: %w", what, err)
	}
	return nil
}

// readAnswer is decodeAnswer, then the printer of what the verb prints.
func readAnswer(f *cmdutil.Factory, raw json.RawMessage, v any, what string) (*output.Printer, error) {
	if err := decodeAnswer(raw, v, what); err != nil {
		return nil, err
	}
	return f.Printer()
}

// printAnswer prints the sandbox's answer raw as it is for machines (-o
// json, --jq, --template), and with people for a person.
func printAnswer(printer *output.Printer, raw json.RawMessage, people func() error) error {
	if printer.IsJSON() {
		return printer.Object(raw, nil)
	}
	return people()
}
