// Command floor is the design card's floor for bench/startup.sh: a cobra CLI
// that links the libraries the design card names for bnpl (cobra, viper,
// resty, tablewriter, decimal, uuid), built from the project's go.mod so the
// versions are bnpl's, and does nothing else. `floor version` prints one
// line, as `bnpl version` does; the libraries' code is linked (through a
// command the benchmark never runs) and their package initialisation runs at
// every start, as in any program that imports them.
package main

import (
	"fmt"
	"os"

	"github.com/go-resty/resty/v2"
	"github.com/google/uuid"
	"github.com/olekukonko/tablewriter"
	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func main() {
	root := &cobra.Command{Use: "floor", SilenceUsage: true}
	root.AddCommand(&cobra.Command{
		Use: "version",
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "floor version dev")
		},
	})
	root.AddCommand(&cobra.Command{
		Use: "use",
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := viper.New()
			v.SetEnvPrefix("FLOOR")
			v.AutomaticEnv()
			amount, err := decimal.NewFromString("100.00")
			if err != nil {
				return err
			}
			resp, err := resty.New().R().Get(v.GetString("url"))
			if err != nil {
				return err
			}
			t := tablewriter.NewWriter(cmd.OutOrStdout())
			t.Header("ID", "AMOUNT", "STATUS")
			if err := t.Append(uuid.NewString(), amount.StringFixed(2), resp.Status()); err != nil {
				return err
			}
			return t.Render()
		},
	})
	if err := root.Execute(); err != nil {
		os.Exit(1)
	}
}
