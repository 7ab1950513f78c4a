// Package disputes holds the `bnpl disputes` commands. Disputes exist on
// live payments only, so every verb runs with the live key and refuses,
// before sending anything, to run in test mode.
package disputes

import (
	"net/http"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
)

// liveOnlyNote ends the help of every live-only verb.
const liveOnlyNote = `
Disputes have no test mode: the command uses the profile's live key by itself
(saying so in a one-line notice; --live or BNPL_LIVE=1 make it silent). Without a
live key it stops before sending anything and exits 2, saying how to add one.`

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

// LiveTarget and LiveClient bind the factory's live-only target and
// client to what ("disputes", "dispute webhooks"): the profile's live key,
// taken without --live, with a notice.
func LiveTarget(f *cmdutil.Factory, what string) func() (*config.Target, error) {
	return func() (*config.Target, error) { return f.LiveTarget(what) }
}

// LiveClient: see LiveTarget.
func LiveClient(f *cmdutil.Factory, what string) func() (*api.Client, error) {
	return func() (*api.Client, error) { return f.LiveClient(what) }
}

// RequireLive stops a live-only command before anything is sent when its
// target (LiveTarget) has no live key. what names the
// feature in the message ("disputes", "dispute webhooks").
func RequireLive(target func() (*config.Target, error), what string) error {
	t, err := target()
	if err != nil {
		return err
	}
	if !t.Live {
		return cmdutil.Refuse("add a live key (sk_...) with `bnpl login --profile NAME --with-key`, which reads it from stdin",
			"%s have no test mode, and there is no live key to use", what)
	}
	return nil
}

// notTakenHint gives a 409 on evidence or a challenge (the service says no
// more than "conflict") the one next step: the dispute's status, which
// says whether it still waits for the merchant.
func notTakenHint(err error, id string) error {
	if e, ok := api.AsAPIError(err); ok && e.Status == http.StatusConflict {
		return api.WithHint(err, "the dispute does not take this now (evidence already given, or resolved); see its status with `bnpl disputes get "+id+"`")
	}
	return err
}
