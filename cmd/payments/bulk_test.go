package payments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
)

func TestBulkLiveConfirmationNamesWhatIsAtStake(t *testing.T) {
	for _, answer := range []string{"yes\n", "no\n"} {
		t.Run(strings.TrimSpace(answer), func(t *testing.T) {
			fs, srv := newFakeService(t, api.StatusAuthorized)
			fs.payment.IsTest = false
			h := newHarness(t, srv.URL, "sk_ae_sandbox")
			h.f.IO.SetStdinTTY(true)
			h.f.IO.SetStderrTTY(true)
			h.in.WriteString(answer)
			dir := t.TempDir()
			input := filepath.Join(dir, "caps.csv")
			rows := "payment_id,amount\n" + movedPaymentID + ",100.00\n" + movedPaymentID + ",full\n"
			if err := os.WriteFile(input, []byte(rows), 0o600); err != nil {
				t.Fatal(err)
			}
			err := h.run(newCaptureCmd(h.f, nil), "--from-file", input)
			want := "LIVE: capture 2 rows over 1 payment from " + input + " on merchant ae-sandbox; plan: 2 rows: 2 would go, 0 already made, 0 refused; would move 1250.00 AED? Type yes to confirm:"
			if !strings.Contains(h.errOut.String(), want) {
				t.Fatalf("prompt %q missing from %q", want, h.errOut)
			}
			if answer == "no\n" {
				if cmdutil.ExitCode(err) != cmdutil.ExitUsage || fs.count("POST ") != 0 {
					t.Fatalf("declined: err %v, %d moves", err, fs.count("POST "))
				}
				return
			}
			if err != nil || fs.count("POST ") != 2 {
				t.Fatalf("confirmed: err %v, %d moves\n%s", err, fs.count("POST "), h.errOut)
			}
			if !strings.Contains(h.errOut.String(), "moved 1250.00 AED") {
				t.Errorf("summary %q", h.errOut)
			}
		})
	}
}

func TestBulkFilesMustDiffer(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("payment_id\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Symlink(dir, sub); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		j, r  string
		clash bool
	}{
		{filepath.Join(dir, "j"), filepath.Join(dir, "r"), false},
		{in, filepath.Join(dir, "r"), true},
		{filepath.Join(dir, "j"), link, true},
		{filepath.Join(dir, "j"), filepath.Join(sub, "j"), true}, // neither exists yet
		{filepath.Join(dir, "x", "..", "j"), filepath.Join(dir, "j"), true},
	}
	for _, c := range cases {
		err := distinctFiles(map[string]string{"--from-file": in, "--journal": c.j, "--report": c.r})
		if (err != nil) != c.clash {
			t.Errorf("journal %s report %s: %v", c.j, c.r, err)
		}
	}
	if err := distinctFiles(map[string]string{"--from-file": "-", "--journal": "-", "--report": ""}); err != nil {
		t.Errorf("stdin: %v", err)
	}
}

// A live apply run confirms with the plan of its mixed rows: the capture
// and the close after it, on the payment as the capture leaves it.
func TestApplyLiveConfirmationShowsThePlanOfMixedRows(t *testing.T) {
	fs, srv := newFakeService(t, api.StatusAuthorized)
	fs.payment.IsTest = false
	h := newHarness(t, srv.URL, "sk_ae_sandbox")
	h.f.IO.SetStdinTTY(true)
	h.f.IO.SetStderrTTY(true)
	h.in.WriteString("yes\n")
	input := filepath.Join(t.TempDir(), "moves.csv")
	rows := "op,payment_id,amount\ncapture," + movedPaymentID + ",100.00\nclose," + movedPaymentID + ",\n"
	if err := os.WriteFile(input, []byte(rows), 0o600); err != nil {
		t.Fatal(err)
	}
	err := h.run(newApplyCmd(h.f, nil), "--input", input)
	want := "LIVE: apply 2 rows over 1 payment from " + input + " on merchant ae-sandbox; plan: 2 rows: 2 would go, 0 already made, 0 refused; would move 100.00 AED? Type yes to confirm:"
	if !strings.Contains(h.errOut.String(), want) {
		t.Fatalf("prompt %q missing from %q", want, h.errOut)
	}
	if err != nil || fs.count("POST ") != 2 || fs.payment.Status != api.StatusClosed || !fs.payment.Captured().Equal(decimal.RequireFromString("100")) {
		t.Fatalf("err %v, %d moves, payment %s captured %s\n%s", err, fs.count("POST "), fs.payment.Status, fs.payment.Captured(), h.errOut)
	}
	if err := h.run(newApplyCmd(h.f, nil)); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "needs --input FILE") {
		t.Errorf("apply without --input: %v", err)
	}
}

// The ledger's scope is the service alone, spelt one way: runs of the same
// moves with the merchant code or without it, with another key of the
// merchant, or through another spelling of the address claim the same
// payments; another service, or another region's, is another scope.
func TestLedgerScopeIsTheServiceSpeltOneWay(t *testing.T) {
	base := &config.Target{BaseURL: "http://127.0.0.1:8700", Region: "ae", SecretKey: "sk_test_ae_sandbox"}
	want := ledgerScope(base)
	for _, same := range []config.Target{
		{BaseURL: "http://127.0.0.1:8700", Region: "ae", MerchantCode: "ae-sandbox", SecretKey: "sk_test_ae_sandbox"},
		{BaseURL: "http://127.0.0.1:8700/", Region: "ae", SecretKey: "sk_test_ae_sandbox"},
		{BaseURL: "HTTP://LOCALHOST:8700", Region: "ae", SecretKey: "sk_test_ae_sandbox"},
		{BaseURL: "http://127.0.0.1:8700", Region: "ae", SecretKey: "sk_test_ae_rotated"},
		{BaseURL: "http://127.0.0.1:8700", Region: "ae", SecretKey: "sk_ae_sandbox", Live: true},
	} {
		if got := ledgerScope(&same); got != want {
			t.Errorf("scope of %s is %q, want %q as for %s", same, got, want, base)
		}
	}
	if ledgerScope(&config.Target{Region: "ae"}) != ledgerScope(&config.Target{BaseURL: "https://api.tabby.ai:443/", Region: "ae"}) {
		t.Error("the region's default address and the same address spelt out are other scopes")
	}
	for _, other := range []config.Target{
		{BaseURL: "http://127.0.0.1:8701", Region: "sa"},
		{BaseURL: "http://127.0.0.1:9700", Region: "ae"},
		{Region: "ae"},
		{Region: "sa"},
	} {
		if got := ledgerScope(&other); got == want {
			t.Errorf("scope of %s is %q, the same as for %s", other, got, base)
		}
	}
}
