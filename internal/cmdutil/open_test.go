package cmdutil

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/output"
)

func TestOneRecordChecksTheIDBeforeItRuns(t *testing.T) {
	const id = "5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b"
	for _, c := range []struct {
		args []string
		want string // "" runs
	}{
		{[]string{id}, ""},
		{nil, "needs a session id"},
		{[]string{"not-a-uuid"}, `invalid session id "not-a-uuid"`},
		{[]string{id, id}, ""},
	} {
		var got string
		ran := false
		cmd := OneRecord(&cobra.Command{Use: "get"}, "session", "a session id", &got, func(context.Context) error {
			ran = true
			return nil
		})
		cmd.SetArgs(c.args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		err := cmd.Execute()
		switch {
		case len(c.args) == 2:
			if err == nil || ran {
				t.Errorf("%v: ran %t, err %v; want a usage error", c.args, ran, err)
			}
		case c.want == "":
			if err != nil || !ran || got != id {
				t.Errorf("%v: ran %t with %q, err %v", c.args, ran, got, err)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), c.want) || ExitCode(err) != 2 || ran {
				t.Errorf("%v: ran %t, err %v (exit %d); want %q, exit 2", c.args, ran, err, ExitCode(err), c.want)
			}
		}
	}
}

func TestPrinterAndClientRefusesThePrinterFirst(t *testing.T) {
	bad := errors.New("bad --template")
	asked := false
	_, _, err := PrinterAndClient(
		func() (*output.Printer, error) { return nil, bad },
		func() (*api.Client, error) { asked = true; return nil, errors.New("no key") })
	if !errors.Is(err, bad) || asked {
		t.Errorf("err %v, client asked %t; want the printer's error and no client", err, asked)
	}
}
