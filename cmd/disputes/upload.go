package disputes

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// UploadOptions are the inputs of `disputes upload`.
type UploadOptions struct {
	Path    string
	IO      *output.IOStreams
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

func newUploadCmd(f *cmdutil.Factory, run func(context.Context, *UploadOptions) error) *cobra.Command {
	opts := &UploadOptions{IO: f.IO, Target: LiveTarget(f, "disputes"), Client: LiveClient(f, "disputes"), Printer: f.Printer}
	return &cobra.Command{
		Use:   "upload <file>",
		Short: "Upload a PNG, JPEG or PDF for evidence or a challenge; prints its id",
		Long: `Upload a file to attach to evidence or a challenge, and print the attachment id.
The file must be PNG, JPEG or PDF, recognised by its content rather than its name,
and at most 5 MB; anything else is refused before sending, with exit 2.

evidence and challenge also take files directly with --attach, and upload them first.
` + liveOnlyNote,
		Example: `  bnpl disputes upload receipt.pdf
  ID=$(bnpl disputes upload photo.png)`,
		Args: cmdutil.ExactArgs(1, "a file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return uploadRun(cmd.Context(), opts)
		},
	}
}

func uploadRun(ctx context.Context, o *UploadOptions) error {
	if err := RequireLive(o.Target, "disputes"); err != nil {
		return err
	}
	file, err := openAttachment(o.Path)
	if err != nil {
		return err
	}
	defer file.Close()
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return err
	}
	up, err := client.UploadAttachment(ctx, o.Path, file)
	if err != nil {
		return err
	}
	if printer.IsJSON() {
		rec, err := json.Marshal(up)
		if err != nil {
			return err
		}
		return printer.Object(rec, nil)
	}
	// The bare id, so that ID=$(bnpl disputes upload f.png) works.
	_, err = fmt.Fprintln(o.IO.Out, up.ID)
	return err
}
