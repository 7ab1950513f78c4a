package listen

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// registerOptions are Options whose clients reach sb in process, with the
// built-in merchant's test and live keys.
func registerOptions(t *testing.T, sb *sandbox.Sandbox) (*Options, *bytes.Buffer) {
	t.Helper()
	ios, _, _, errOut := output.Test()
	client := func(key string) func() (*api.Client, error) {
		return func() (*api.Client, error) {
			return api.New(api.Options{BaseURL: "http://127.0.0.1", SecretKey: key, MerchantCode: "ae-sandbox",
				Region: "ae", Retries: 0, Transport: sb.Transport("ae")})
		}
	}
	o := &Options{IO: ios,
		Target: func() (*config.Target, error) {
			return &config.Target{Embedded: true, MerchantCode: "ae-sandbox", Region: "ae"}, nil
		},
		Client:     client("sk_test_ae_sandbox"),
		LiveClient: func(string) (*api.Client, error) { return client("sk_ae_sandbox")() },
	}
	return o, errOut
}

func TestRegisterWatchRemove(t *testing.T) {
	sb, err := sandbox.New(sandbox.Options{AllowLocalWebhooks: true, NoRequestLog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	o, errOut := registerOptions(t, sb)
	ctx := context.Background()
	target, _ := o.Target()
	header, err := selfHeader()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := o.register(ctx, target, "the embedded sandbox", "http://127.0.0.1:8787/listen-0123abcd", header)
	if err != nil {
		t.Fatal(err)
	}
	pay, _ := o.Client()
	live, _ := o.LiveClient("")
	hooks, err := pay.ListWebhooks(ctx)
	if err != nil || len(hooks) != 1 || hooks[0].URL != "http://127.0.0.1:8787/listen-0123abcd/payments" || hooks[0].Header == nil || hooks[0].Header.Title != selfHeaderTitle {
		t.Fatalf("payment webhooks %+v, %v", hooks, err)
	}
	dhooks, err := live.ListDisputeWebhooks(ctx)
	if err != nil || len(dhooks) != 1 || !strings.HasSuffix(dhooks[0].URL, "/listen-0123abcd/disputes") {
		t.Fatalf("dispute webhooks %+v, %v", dhooks, err)
	}
	if strings.Contains(errOut.String(), header.Value) {
		t.Fatal("the header value was printed")
	}

	// Someone else removes the dispute webhook: watch says so, exit 6,
	// and remove() leaves it alone and removes the payment webhook.
	if err := live.DeleteDisputeWebhook(ctx, reg.dispID); err != nil {
		t.Fatal(err)
	}
	werr := reg.watch(ctx)
	var end *endError
	if !errors.As(werr, &end) || end.ExitCode() != cmdutil.ExitNotFound || !strings.Contains(end.Error(), "dispute webhook") {
		t.Fatalf("watch answered %v", werr)
	}
	reg.remove()
	if hooks, _ := pay.ListWebhooks(ctx); len(hooks) != 0 {
		t.Fatalf("left behind %+v", hooks)
	}
	if !strings.Contains(errOut.String(), "removed payment webhook "+hooks[0].ID) || strings.Contains(errOut.String(), "removed dispute webhook") {
		t.Fatalf("stderr:\n%s", errOut)
	}
}

func TestRegisterRefusedLoopbackSaysWhatToRun(t *testing.T) {
	sb, err := sandbox.New(sandbox.Options{NoRequestLog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	o, _ := registerOptions(t, sb)
	target, _ := o.Target()
	header, _ := selfHeader()
	_, err = o.register(context.Background(), target, "the embedded sandbox", "http://127.0.0.1:8787/listen-0123abcd", header)
	var hinted interface{ Hint() string }
	if !errors.As(err, &hinted) || !strings.Contains(hinted.Hint(), "bnpl sandbox serve --allow-local-webhooks") {
		t.Fatalf("register answered %v", err)
	}
	pay, _ := o.Client()
	if hooks, _ := pay.ListWebhooks(context.Background()); len(hooks) != 0 {
		t.Fatalf("registered %+v", hooks)
	}
}
