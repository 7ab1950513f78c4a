package sandbox

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// ServeOptions are the inputs of `bnpl sandbox serve`.
type ServeOptions struct {
	AEAddr     string
	SAAddr     string
	State      string
	Merchants  string
	AuthExpiry time.Duration
}

func newServeCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &ServeOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the sandbox on loopback, one listener per region",
		Long: `Serve the sandbox: the service's checkout, payment, webhook and dispute endpoints
with their statuses, errors and state, one listener per regional base address. It
prints the base URLs and the built-in merchants with their keys, then serves until
interrupted. State is in memory unless --state names a file; the file may be shared
with other processes, including the embedded sandbox.`,
		Example: `  bnpl sandbox serve
  bnpl sandbox serve --state sandbox.db --ae-addr 127.0.0.1:9700 --sa-addr 127.0.0.1:9701`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			so := sandbox.ServeOptions{AEAddr: opts.AEAddr, SAAddr: opts.SAAddr}
			so.StatePath = opts.State
			so.AuthExpiry = opts.AuthExpiry
			if opts.Merchants != "" {
				ms, err := sandbox.LoadMerchants(opts.Merchants)
				if err != nil {
					return cmdutil.Refuse("see docs/sandbox.md for the merchants file format", "--merchants: %v", err)
				}
				so.Merchants = ms
			}
			return sandbox.Serve(cmd.Context(), so, f.IO.Out)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.AEAddr, "ae-addr", "127.0.0.1:8700", "listen address of the ae region (UAE and Kuwait)")
	fl.StringVar(&opts.SAAddr, "sa-addr", "127.0.0.1:8701", "listen address of the sa region (KSA)")
	fl.StringVar(&opts.State, "state", "", "SQLite file for the state (default: in memory)")
	fl.StringVar(&opts.Merchants, "merchants", "", "file defining merchants beyond the built-in ones")
	fl.DurationVar(&opts.AuthExpiry, "auth-expiry", sandbox.DefaultAuthExpiry, "how long an authorization lasts before it expires")
	return cmd
}
