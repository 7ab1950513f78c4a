// Package disputes holds the `bnpl disputes` commands. Disputes exist on
// live payments only, so every verb runs with the live key and refuses,
// before sending anything, to run in test mode.
package disputes

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
)

// liveOnlyNote ends the help of every live-only verb.
const liveOnlyNote = `
Disputes have no test mode: pass --live (or set BNPL_LIVE=1) to use the profile's
live key. In test mode the command stops before sending anything and exits 2, where
the service would answer 403 (exit 5).`

// NewCmd returns `bnpl disputes` and its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "disputes <verb>",
		Short: "List, read, answer, approve and challenge disputes (live only)",
		Long: `A customer who disputes a live payment opens a dispute. The merchant reads it,
answers with evidence (text and up to 5 PNG, JPEG or PDF attachments), approves it
(the customer is refunded) or challenges it with a reason.
` + liveOnlyNote,
	}
	cmd.AddCommand(
		newListCmd(f, nil),
		newGetCmd(f, nil),
		newUploadCmd(f, nil),
		newEvidenceCmd(f, nil),
		newChallengeCmd(f, nil),
		newApproveCmd(f, nil),
	)
	return cmd
}

// RequireLive stops a live-only command before anything is sent when the
// target is in test mode or the profile has no live key. what names the
// feature in the message ("disputes", "dispute webhooks").
func RequireLive(target func() (*config.Target, error), what string) error {
	t, err := target()
	var missing *config.MissingKeyError
	if errors.As(err, &missing) && missing.Live {
		return cmdutil.Refuse(missing.Hint(),
			"%s have no test mode, and profile %q has no live key (sk_...) to use with --live", what, missing.Profile)
	}
	if err != nil {
		return err
	}
	if !t.Live {
		return cmdutil.Refuse("store a live key with `bnpl login --profile NAME --with-key` (it reads the key from stdin), then add --live; the service refuses test keys with 403",
			"%s have no test mode: pass --live (and store a live key with bnpl login --with-key)", what)
	}
	return nil
}
