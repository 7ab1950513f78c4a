package sandbox

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

const fixtureHint = "see the fixture format in docs/sandbox.md (\"Fixtures\"), or testdata/fixtures/every-state.yaml"

func newSeedCmd(f *cmdutil.Factory) *cobra.Command {
	var file string
	var seed int64
	cmd := &cobra.Command{
		Use:   "seed --file FILE",
		Short: "Create the payments and webhooks of a fixture file in the sandbox",
		Long: `Create the payments (and payment webhooks) of a fixture file in the sandbox the
verbs act on, each brought to its state by the sandbox's own moves (checkout,
approve, reject or cancel, captures, close, expire-auth, refunds, disputes) at the
file's dates, with the ids, order references, buyers, amounts and items it gives.
A fixture cannot make a state the service could not reach: a move the service
refuses is refused, naming the file, line and field (exit 2), and then nothing is
changed. One seed runs at a time on a state: a second one waits for it (at most
20 seconds, then exit 7). The file is YAML, or JSON of the same shape; - reads
stdin. The format is in docs/sandbox.md ("Fixtures"); bnpl sandbox export writes
one.

It prints each payment with the state it reached (-o json: the file's normalised
form, every default filled in, as export would write it). Ids the file leaves out
are made up; --seed N makes them the same on every run. Dates it leaves out (and
now, now-DURATION) are the sandbox's clock: they repeat on a sandbox served with
--seed N or --clock-start, whose clock is fixed.`,
		Example: `  bnpl sandbox seed --file testdata/fixtures/every-state.yaml
  bnpl sandbox seed --file fixtures.json --seed 7 -o json
  bnpl sandbox export --file state.yaml && bnpl sandbox reset --yes && bnpl sandbox seed --file state.yaml`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return cmdutil.Usagef("--file is required: the fixture file to seed (- for stdin)")
			}
			data, err := userfile.Read("fixture file", file, f.IO.In, 8<<20)
			if err != nil {
				return err
			}
			name := filepath.Base(file)
			if file == "-" {
				name = "stdin"
			}
			// The shape is checked here, before anything is sent; the
			// moves, by the sandbox.
			if _, err := sandbox.ParseFixture(name, data); err != nil {
				return cmdutil.Refuse(fixtureHint, "%v", err)
			}
			q := url.Values{"name": {name}}
			if cmd.Flags().Changed("seed") {
				q.Set("seed", strconv.FormatInt(seed, 10))
			}
			raw, err := seedCall(cmd, f, q, data)
			if err != nil {
				return err
			}
			var fx sandbox.Fixture
			printer, err := readAnswer(f, raw, &fx, "a fixture")
			if err != nil {
				return err
			}
			if err := printAnswer(printer, raw, func() error { return printer.List(seededColumns(), seededRows(&fx)) }); err != nil {
				return err
			}
			f.Noticef("seeded %d payment(s) and %d webhook(s) from %s", len(fx.Payments), len(fx.Webhooks), file)
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "file", "", "the fixture file, YAML or JSON (- for stdin)")
	cmd.Flags().Int64Var(&seed, "seed", 0, "make the ids the file leaves out the same on every run")
	return cmd
}

// seedCall posts the fixture to the sandbox the verbs act on. Its refusal
// of the file (400) is a refused input: exit 2, as a local check would be.
func seedCall(cmd *cobra.Command, f *cmdutil.Factory, q url.Values, data []byte) (json.RawMessage, error) {
	t, err := f.ResolveSandbox(cmd.Context())
	if err != nil {
		return nil, err
	}
	resp, err := t.Client.Raw(cmd.Context(), api.RawRequest{Method: http.MethodPost, Path: "/_sandbox/seed", Query: q,
		Body: data, Header: http.Header{"Content-Type": {"application/yaml"}}})
	var ae *api.APIError
	switch {
	case errors.As(err, &ae) && ae.Status == http.StatusBadRequest:
		return nil, cmdutil.Refuse(fixtureHint+"; nothing was changed", "%s", ae.Message)
	case errors.As(err, &ae) && ae.Status == http.StatusConflict:
		// Another seed held the state, or the state moved under this one
		// and what it had made was taken back: the file is not in it.
		return nil, cmdutil.WithHint(err, "nothing of the file is in the sandbox: run the seed again")
	}
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func seededColumns() []output.Column {
	return []output.Column{
		{Header: "PAYMENT", Path: "id", Kind: output.KindID},
		{Header: "STATUS", Path: "status", Kind: output.KindStatus},
		{Header: "MERCHANT", Path: "merchant", Kind: output.KindReference},
		{Header: "ORDER", Path: "order", Kind: output.KindPlain},
		{Header: "AMOUNT", Path: "amount", Kind: output.KindMoney},
	}
}

func seededRows(fx *sandbox.Fixture) []json.RawMessage {
	rows := make([]json.RawMessage, 0, len(fx.Payments))
	for _, p := range fx.Payments {
		order := ""
		if p.Order != nil {
			order = p.Order.ReferenceID
		}
		b, _ := json.Marshal(map[string]string{"id": p.ID, "status": p.Status, "merchant": p.Merchant, "order": order,
			"amount": p.Amount + " " + p.Currency})
		rows = append(rows, b)
	}
	return rows
}
