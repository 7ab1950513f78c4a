// Package version is the `bnpl version` command.
package version

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// Line is what `bnpl version` and `bnpl --version` print.
func Line(f *cmdutil.Factory) string {
	return fmt.Sprintf("bnpl %s (commit %s, built %s, %s %s/%s)",
		f.Version, f.Commit, f.Date, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// info is the version as a record, for -o json, --jq and --template.
type info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
}

// NewCmd returns `bnpl version`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Long: `Print the version, commit and build date as one line (as bnpl --version does), or
as a record with -o json, --jq or --template.`,
		Args: cmdutil.NoArgs,
		Example: `  bnpl version
  bnpl version -o json --jq .version`,
		RunE: func(cmd *cobra.Command, args []string) error {
			g := f.Global
			if g.Output == "" && g.JQ == "" && g.Template == "" {
				_, err := fmt.Fprintln(f.IO.Out, Line(f))
				return err
			}
			printer, err := f.Printer()
			if err != nil {
				return err
			}
			rec, err := json.Marshal(info{Version: f.Version, Commit: f.Commit, Date: f.Date,
				GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH})
			if err != nil {
				return err
			}
			return printer.Object(rec, &output.Detail{Fields: []output.Field{
				{Label: "Version", Value: f.Version},
				{Label: "Commit", Value: f.Commit},
				{Label: "Built", Value: f.Date},
				{Label: "Go", Value: runtime.Version()},
				{Label: "Platform", Value: runtime.GOOS + "/" + runtime.GOARCH},
			}})
		},
	}
}
