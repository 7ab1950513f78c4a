package disputes

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// EvidenceOptions are the inputs of `disputes evidence`.
type EvidenceOptions struct {
	AnswerOptions
	Comment string
}

func newEvidenceCmd(f *cmdutil.Factory, run func(context.Context, *EvidenceOptions) error) *cobra.Command {
	opts := &EvidenceOptions{AnswerOptions: newAnswerOptions(f)}
	if run == nil {
		run = evidenceRun
	}
	cmd := answerCmd(&cobra.Command{
		Use:   "evidence <dispute-id> --comment TEXT [--attach FILE_OR_ID]...",
		Short: "Answer a dispute with a comment and up to 5 attachments",
		Long: `Answer a dispute with a comment and up to 5 attachments. --attach takes a PNG, JPEG
or PDF file (uploaded first) or the id of an attachment uploaded earlier with
bnpl disputes upload. Every file is checked before the first is uploaded.
` + liveOnlyNote,
		Example: `  bnpl disputes evidence 9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11 --comment "Delivered on 2 May, signed for"
  bnpl disputes evidence 9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11 --comment "Photos of the parcel" --attach parcel.png --attach receipt.pdf`,
	}, &opts.AnswerOptions, opts.validate, func(ctx context.Context) error { return run(ctx, opts) })
	cmd.Flags().StringVar(&opts.Comment, "comment", "", "what the merchant says about the dispute (required)")
	return cmd
}

func (o *EvidenceOptions) validate() error {
	if err := cmdutil.CheckUUID("dispute", o.ID); err != nil {
		return err
	}
	if strings.TrimSpace(o.Comment) == "" {
		return cmdutil.Usagef("--comment is required and must not be empty")
	}
	return nil
}

func evidenceRun(ctx context.Context, o *EvidenceOptions) error {
	var ev *api.Evidence
	printer, err := o.send(ctx, func(client *api.Client, attachmentIDs []string) (err error) {
		ev, err = client.ProvideEvidence(ctx, o.ID, api.EvidenceRequest{Content: o.Comment, AttachmentIDs: attachmentIDs})
		return err
	})
	if err != nil {
		return err
	}
	return printer.Object(ev.Raw(), evidenceDetail(ev))
}
