package checkout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

var aeTarget = &config.Target{Region: "ae", MerchantCode: "ae-sandbox"}

func newOpts(notices *[]string) *CreateOptions {
	return &CreateOptions{
		Now:        func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) },
		Notice:     func(format string, args ...any) { *notices = append(*notices, format) },
		Currencies: MerchantCurrencies,
		Stdin:      strings.NewReader(""),
	}
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFlagsOnlyBodyIsCompleteAndValid(t *testing.T) {
	var notices []string
	o := newOpts(&notices)
	o.Amount, o.ReferenceID = "120.00", "ORDER-1"
	o.BuyerName, o.BuyerEmail, o.BuyerPhone = "Layla", "layla@example.com", "+971500000001"
	o.ShippingCity, o.ShippingAddress, o.ShippingZip = "Dubai", "Marina 1", "00000"
	o.Items = []string{"Shoes: trail:2:60.00:Footwear"}
	o.Meta = []string{"channel=cli", "note=a=b"}
	body, err := o.requestBody(aeTarget)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, body)
	if m["lang"] != "en" || m["merchant_code"] != "ae-sandbox" {
		t.Errorf("defaults: %v", m)
	}
	p := m["payment"].(map[string]any)
	if p["currency"] != "AED" {
		t.Errorf("currency %v", p["currency"])
	}
	bh := p["buyer_history"].(map[string]any)
	if bh["registered_since"] != "2026-11-21T12:00:00Z" || bh["loyalty_level"] != float64(0) {
		t.Errorf("buyer_history %v", bh)
	}
	item := p["order"].(map[string]any)["items"].([]any)[0].(map[string]any)
	if item["title"] != "Shoes: trail" || item["quantity"] != float64(2) || item["unit_price"] != "60.00" {
		t.Errorf("item %v", item)
	}
	meta := p["meta"].(map[string]any)
	if meta["channel"] != "cli" || meta["note"] != "a=b" {
		t.Errorf("meta %v", meta)
	}
	if len(notices) != 1 {
		t.Errorf("notices %v", notices)
	}
}

func TestFlagsWinOverTheFile(t *testing.T) {
	var notices []string
	o := newOpts(&notices)
	o.File = filepath.Join("..", "..", "testdata", "checkout.json")
	o.Amount, o.BuyerEmail, o.Lang = "99.99", "other@example.com", "ar"
	body, err := o.requestBody(aeTarget)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, body)
	p := m["payment"].(map[string]any)
	if p["amount"] != "99.99" || p["buyer"].(map[string]any)["email"] != "other@example.com" || m["lang"] != "ar" {
		t.Errorf("flags did not win: %s", body)
	}
	// What no flag touched is the file's, exactly.
	if p["buyer"].(map[string]any)["name"] != "Layla Haddad" || len(p["order"].(map[string]any)["items"].([]any)) != 2 {
		t.Errorf("file values lost: %s", body)
	}
	if len(notices) != 0 {
		t.Errorf("nothing needed filling, got %v", notices)
	}
}

func TestNumbersOfTheFileGoOutAsWritten(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "checkout.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.json")
	if err := os.WriteFile(path, bytes.Replace(src, []byte(`"loyalty_level": 2`), []byte(`"loyalty_level": 12345678901234567`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	var notices []string
	o := newOpts(&notices)
	o.File = path
	body, err := o.requestBody(aeTarget)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(body, []byte(`"loyalty_level":12345678901234567`)) {
		t.Errorf("a large integer was rewritten: %s", body)
	}
}

func TestEveryProblemAtOnce(t *testing.T) {
	var notices []string
	o := newOpts(&notices)
	o.File = filepath.Join("..", "..", "testdata", "checkout-invalid.json")
	o.Items = []string{"bad", "x:y:1:z"}
	o.Meta = []string{"=v"}
	_, err := o.requestBody(aeTarget)
	var v *api.ValidationError
	if !errors.As(err, &v) {
		t.Fatalf("err = %v", err)
	}
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("exit %d", cmdutil.ExitCode(err))
	}
	paths := map[string]int{}
	for _, p := range v.Problems {
		paths[p.Path]++
	}
	for _, want := range []string{"--item", "--meta", "$.lang", "$.payment.currency", "$.payment.buyer.email"} {
		if paths[want] == 0 {
			t.Errorf("no problem at %s: %v", want, v.Problems)
		}
	}
	if paths["--item"] != 2 {
		t.Errorf("want both --item problems: %v", v.Problems)
	}
	if !strings.HasPrefix(err.Error(), "the checkout request has ") {
		t.Errorf("message: %v", err)
	}
}

func TestMerchantCurrencies(t *testing.T) {
	cases := []struct {
		region, merchant string
		want             string
	}{
		{"ae", "ae-sandbox", "AED"},
		{"ae", "kw-sandbox", "KWD"},
		{"sa", "sa-sandbox", "SAR"},
		{"ae", "my-shop", "AED,KWD"},
		{"sa", "my-shop", "SAR"},
		{"", "my-shop", ""},
	}
	// A region nobody named says nothing about the merchant's country.
	if got := MerchantCurrencies(&config.Target{Region: "ae", Sources: map[string]string{"region": config.SourceDefault}}, "my-shop"); got != nil {
		t.Errorf("default region narrowed the currencies to %v", got)
	}
	for _, c := range cases {
		got := strings.Join(MerchantCurrencies(&config.Target{Region: c.region}, c.merchant), ",")
		if got != c.want {
			t.Errorf("%s/%s = %q, want %q", c.region, c.merchant, got, c.want)
		}
	}
}

func TestAttachmentFromAFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.json")
	if err := os.WriteFile(path, []byte("{\n  \"pnr\": \"TR9\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var notices []string
	o := newOpts(&notices)
	o.File = filepath.Join("..", "..", "testdata", "checkout.json")
	o.Attachment, o.AttachmentType = path, "application/vnd.acme.v1+json"
	body, err := o.requestBody(aeTarget)
	if err != nil {
		t.Fatal(err)
	}
	att := decode(t, body)["payment"].(map[string]any)["attachment"].(map[string]any)
	if att["body"] != `{"pnr":"TR9"}` || att["content_type"] != "application/vnd.acme.v1+json" {
		t.Errorf("attachment %v", att)
	}
}

// An invalid request never reaches the network; a valid one does, once.
func TestCreateSendsNothingWhenInvalid(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c","status":"rejected","payment":{"id":"3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f","amount":"1250.00","currency":"AED","status":"CREATED","is_test":true},` +
			`"configuration":{"available_products":{"installments":[]},"products":{"installments":{"type":"installments","is_available":false,"rejection_reason":"not_available"}}}}`))
	}))
	defer srv.Close()
	ios, _, out, errOut := output.Test()
	dir := t.TempDir()
	env := map[string]string{
		"XDG_CONFIG_HOME": dir, "XDG_STATE_HOME": dir, "XDG_CACHE_HOME": dir, "HOME": dir,
		"BNPL_SECRET_KEY": "sk_test_ae_sandbox", "BNPL_BASE_URL": srv.URL, "BNPL_MERCHANT_CODE": "ae-sandbox",
	}
	f := &cmdutil.Factory{IO: ios, Global: &cmdutil.GlobalOptions{Timeout: 5 * time.Second, Output: "tsv"}, Getenv: func(k string) string { return env[k] }}
	run := func(args ...string) error {
		cmd := newCreateCmd(f, nil)
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		return cmd.ExecuteContext(context.Background())
	}

	err := run("--file", filepath.Join("..", "..", "testdata", "checkout-invalid.json"))
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || hits.Load() != 0 {
		t.Fatalf("invalid: exit %d, %d requests: %v", cmdutil.ExitCode(err), hits.Load(), err)
	}
	err = run("--file", filepath.Join("..", "..", "testdata", "checkout.json"), "--currency", "SAR")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || hits.Load() != 0 || !strings.Contains(err.Error(), "only 'AED' is supported, but got 'SAR'") {
		t.Fatalf("currency: exit %d, %d requests: %v", cmdutil.ExitCode(err), hits.Load(), err)
	}

	// A rejection is a result: exit 0, with its reason.
	if err := run("--file", filepath.Join("..", "..", "testdata", "checkout.json")); err != nil {
		t.Fatalf("valid: %v\n%s", err, errOut)
	}
	if hits.Load() != 1 {
		t.Errorf("%d requests, want 1", hits.Load())
	}
	if !strings.Contains(out.String(), "Rejection\tnot_available") || !strings.Contains(out.String(), "Status\trejected") {
		t.Errorf("stdout: %s", out)
	}
}
