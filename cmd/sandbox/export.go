package sandbox

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

func newExportCmd(f *cmdutil.Factory) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "export --file FILE",
		Short: "Write the sandbox's payments and webhooks as a fixture file",
		Long: `Write today's state of the sandbox the verbs act on as a fixture file, the format
bnpl sandbox seed reads: every payment in the order it was created, with the moves
that brought it to its state, and the payment webhooks (their header values, which
are secrets, are left out). Seeding the file into an empty sandbox and exporting
again gives the same file, so a state made by hand can be kept and replayed.

The file is YAML, or JSON when FILE ends in .json or with -o json; - writes to
stdout. An existing file is replaced.`,
		Example: `  bnpl sandbox export --file state.yaml
  bnpl sandbox export --file - -o json | jq '.payments[].status'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return cmdutil.Usagef("--file is required: where to write the fixture (- for stdout)")
			}
			raw, err := Control(cmd.Context(), f, http.MethodGet, "/_sandbox/export", nil, nil)
			if err != nil {
				return err
			}
			var fx sandbox.Fixture
			if err := decodeAnswer(raw, &fx, "a fixture"); err != nil {
				return err
			}
			if file == "-" {
				// On stdout, -o json (and --jq, --template) print as
				// every command does.
				printer, err := f.Printer()
				if err != nil {
					return err
				}
				if printer.IsJSON() {
					return printer.Object(raw, nil)
				}
			}
			asJSON := strings.EqualFold(filepath.Ext(file), ".json") || f.Global.Output == "json"
			b, err := sandbox.MarshalFixture(&fx, asJSON)
			if err != nil {
				return err
			}
			if file == "-" {
				_, err = f.IO.Out.Write(b)
				return err
			}
			if err := os.WriteFile(file, b, 0o644); err != nil {
				return fmt.Errorf("writing the fixture: %w", err)
			}
			f.Noticef("wrote %d payment(s) and %d webhook(s) to %s", len(fx.Payments), len(fx.Webhooks), file)
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "file", "", "where to write the fixture (- for stdout)")
	return cmd
}
