package sandbox

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// addContainerFlags declares the flags a container needs, in the
// surface's spelling (--allowed-host, --open-control, shown in help) and
// in the earlier one (--allow-host, --allow-remote-control, hidden, still
// working; the variables keep their names).
func addContainerFlags(cmd *cobra.Command, opts *ServeOptions) {
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.allowedHosts, "allowed-host", nil, "a host name /_sandbox/ paths answer besides addresses and localhost (a container's service name); repeatable (env BNPL_SANDBOX_ALLOW_HOST; also --allow-host)")
	fl.BoolVar(&opts.openControl, "open-control", false, "open the control endpoints and the dashboard to clients that are not loopback: for a container only (env BNPL_SANDBOX_ALLOW_REMOTE_CONTROL; also --allow-remote-control)")
	fl.StringArrayVar(&opts.AllowHosts, "allow-host", nil, "the earlier spelling of --allowed-host")
	fl.BoolVar(&opts.AllowRemoteControl, "allow-remote-control", false, "the earlier spelling of --open-control")
	_ = fl.MarkHidden("allow-host")
	_ = fl.MarkHidden("allow-remote-control")
}

// mergeSpellings folds the surface's spellings into the options, and
// remembers how the control endpoints were opened: the variable, or the
// flag as it was spelled.
func (o *ServeOptions) mergeSpellings() {
	o.AllowHosts = append(o.AllowHosts, o.allowedHosts...)
	switch env, fromEnv := o.fromEnv["open-control"]; {
	case fromEnv:
		o.controlSetting = env + "=1"
	case o.openControl:
		o.controlSetting = "--open-control"
	default:
		o.controlSetting = "--allow-remote-control"
	}
	o.AllowRemoteControl = o.AllowRemoteControl || o.openControl
}

// seedFilePrepare reads and checks --seed-file before anything listens,
// and answers what seeds it into the opened state before it serves: a
// refused fixture stops serve with exit 2, naming the file, line and field.
func seedFilePrepare(cmd *cobra.Command, f *cmdutil.Factory, opts *ServeOptions) (func(*sandbox.Sandbox) error, error) {
	if opts.SeedFile == "" {
		return nil, nil
	}
	data, err := userfile.Read("fixture file", opts.SeedFile, f.IO.In, 8<<20)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(opts.SeedFile)
	if _, err := sandbox.ParseFixture(name, data); err != nil {
		return nil, cmdutil.Refuse(fixtureHint, "--seed-file: %v", err)
	}
	seed := opts.Seed
	return func(sb *sandbox.Sandbox) error {
		if held, err := stateHolds(cmd.Context(), sb); err != nil || held != "" {
			if err == nil {
				f.Noticef("the state holds %s already: --seed-file %s skipped (only an empty state is seeded; bnpl sandbox reset empties it)", held, opts.SeedFile)
			}
			return err
		}
		fx, err := sb.SeedFixture(cmd.Context(), name, data, seed)
		var fe *sandbox.FixtureError
		if errors.As(err, &fe) {
			return cmdutil.Refuse(fixtureHint+"; nothing was changed", "--seed-file: %v", err)
		}
		if err != nil {
			return err
		}
		f.Noticef("seeded %d payment(s) and %d webhook(s) from %s", len(fx.Payments), len(fx.Webhooks), opts.SeedFile)
		return nil
	}, nil
}

// stateHolds says what the state holds ("3 payment(s) and 1 webhook(s)"),
// "" when it is empty: a container restarted on its volume keeps its state
// rather than seed it a second time.
func stateHolds(ctx context.Context, sb *sandbox.Sandbox) (string, error) {
	fx, err := sb.ExportFixture(ctx)
	if err != nil || len(fx.Payments)+len(fx.Webhooks) == 0 {
		return "", err
	}
	return fmt.Sprintf("%d payment(s) and %d webhook(s)", len(fx.Payments), len(fx.Webhooks)), nil
}

// spellingChanged tells whether the other spelling of a container flag
// was given on the command line, which then wins over the variable.
func spellingChanged(cmd *cobra.Command, name string) bool {
	other := map[string]string{"allowed-host": "allow-host", "open-control": "allow-remote-control"}[name]
	fl := cmd.Flags().Lookup(other)
	return fl != nil && fl.Changed
}
