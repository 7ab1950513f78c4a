package cmdutil

import (
	"fmt"
	"github.com/bnpl-cli/bnpl/internal/secret"

	"github.com/bnpl-cli/bnpl/internal/config"
)

// announceLiveLocked writes the LIVE header line on stderr the first time a
// command builds a client with a live key, however the key was chosen
// (--live, BNPL_SECRET_KEY, the profile, or a live-only command taking the
// profile's live key by itself), so a person sees before any output that
// real money and real customers are involved.
//
// Like gh's status lines, it is for a person at a terminal: it is written
// only when stderr is one, and --quiet, which keeps stderr to errors and
// the questions that must be asked, leaves it out. A live money move still
// asks its "LIVE: ..." question under --quiet. Its colour (bold red) follows
// stderr's colour rules: off under NO_COLOR, --no-color and CLICOLOR=0.
func (f *Factory) announceLiveLocked(t *config.Target) {
	if !f.liveLineDue(t) {
		return
	}
	f.liveShown = true
	cs := f.IO.ErrColors()
	what := liveWhat(t)
	if f.liveOnly != "" && (t.Embedded || t.SandboxKeys) {
		what += " (" + f.liveOnly + " are live only)"
	}
	fmt.Fprintf(f.IO.ErrOut, "%s  %s\n", cs.LiveBadge("LIVE"), what)
}

// liveLineDue is whether announceLiveLocked writes the LIVE line for t.
// It then says all that the embedded sandbox's own notice would, which
// is left out.
func (f *Factory) liveLineDue(t *config.Target) bool {
	return t != nil && t.Live && !f.liveShown && !f.Global.Quiet && f.IO.IsStderrTTY()
}

// liveWhat says which merchant the live key reaches and where it came
// from; never the key.
func liveWhat(t *config.Target) string {
	merchant := t.Merchant()
	switch {
	case t.Embedded:
		return "the embedded sandbox, " + merchant
	case t.SandboxKeys:
		return "the sandbox at " + secret.RedactURL(t.BaseURL) + ", live mode, " + merchant
	case t.Sources["secret_key"] == config.SourceEnv:
		return merchant + ", live key from " + config.EnvSecretKey
	case t.Profile != "":
		return merchant + ", live key of profile " + t.Profile
	}
	return merchant + ", live key"
}

// AnnounceLive writes the LIVE line for a command that builds its own
// client (doctor's probe) rather than taking the factory's.
func (f *Factory) AnnounceLive(t *config.Target) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.announceLiveLocked(t)
}
