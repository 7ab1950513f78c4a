package disputes

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// EvidenceOptions are the inputs of `disputes evidence`.
type EvidenceOptions struct {
	ID      string
	Comment string
	Attach  []string

	Notice  func(format string, args ...any)
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

func newEvidenceCmd(f *cmdutil.Factory, run func(context.Context, *EvidenceOptions) error) *cobra.Command {
	opts := &EvidenceOptions{Notice: f.Noticef, Target: LiveTarget(f, "disputes"), Client: LiveClient(f, "disputes"), Printer: f.Printer}
	cmd := &cobra.Command{
		Use:   "evidence <dispute-id> --comment TEXT [--attach FILE_OR_ID]...",
		Short: "Answer a dispute with a comment and up to 5 attachments",
		Long: `Answer a dispute with a comment and up to 5 attachments. --attach takes a PNG, JPEG
or PDF file (uploaded first) or the id of an attachment uploaded earlier with
bnpl disputes upload. Every file is checked before the first is uploaded.
` + liveOnlyNote,
		Example: `  bnpl disputes evidence 9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11 --comment "Delivered on 2 May, signed for"
  bnpl disputes evidence 9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11 --comment "Photos of the parcel" --attach parcel.png --attach receipt.pdf`,
		Args: cmdutil.ExactArgs(1, "a dispute id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if err := cmdutil.CheckUUID("dispute", opts.ID); err != nil {
				return err
			}
			if strings.TrimSpace(opts.Comment) == "" {
				return cmdutil.Usagef("--comment is required and must not be empty")
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return evidenceRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Comment, "comment", "", "what the merchant says about the dispute (required)")
	fl.StringArrayVar(&opts.Attach, "attach", nil, "a PNG, JPEG or PDF file, or an attachment id (repeat, at most 5)")
	return cmd
}

func evidenceRun(ctx context.Context, o *EvidenceOptions) error {
	if err := RequireLive(o.Target, "disputes"); err != nil {
		return err
	}
	atts, err := prepareAttachments(o.Attach)
	if err != nil {
		return err
	}
	defer closeAttachments(atts)
	printer, err := o.Printer()
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	ids, err := uploadAttachments(ctx, client, atts, o.Notice)
	if err != nil {
		return err
	}
	ev, err := client.ProvideEvidence(ctx, o.ID, api.EvidenceRequest{Content: o.Comment, AttachmentIDs: ids})
	if err != nil {
		return notTakenHint(err, o.ID)
	}
	return printer.Object(ev.Raw(), evidenceDetail(ev))
}
