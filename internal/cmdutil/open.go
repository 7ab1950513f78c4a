package cmdutil

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// PrinterAndClient makes a command's printer, then its client: the order
// every command that prints the service's answer keeps, so that a bad -o,
// --jq or --template is refused before a key is needed.
func PrinterAndClient(printer func() (*output.Printer, error), client func() (*api.Client, error)) (*output.Printer, *api.Client, error) {
	p, err := printer()
	if err != nil {
		return nil, nil, err
	}
	c, err := client()
	if err != nil {
		return nil, nil, err
	}
	return p, c, nil
}

// OneRecord makes cmd a command about the one record its argument names,
// as every noun's get, remove and the like are: exactly one argument (arg
// names it in the usage error of a missing one: "a session id"), a UUID
// (kind names it: "session"), set in *id before run.
func OneRecord(cmd *cobra.Command, kind, arg string, id *string, run func(ctx context.Context) error) *cobra.Command {
	cmd.Args = ExactArgs(1, arg)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		*id = args[0]
		if err := CheckUUID(kind, *id); err != nil {
			return err
		}
		return run(cmd.Context())
	}
	return cmd
}
