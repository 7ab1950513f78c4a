package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// TestClientAndSandboxAgree: on every entry of FuzzValidateCheckout's
// corpus (which holds the request shapes of the service's own plugins), on
// the project's example checkouts and on every one-field mutation of them,
// the client's local checkout validation and the sandbox give the same
// verdict: the client lets a body through exactly when the sandbox takes
// it. The sandbox is given a merchant matching each body's merchant_code
// and currency, with tokens enabled, so that only the rules decide.
func TestClientAndSandboxAgree(t *testing.T) {
	bodies := corpus(t)
	for _, name := range []string{"checkout.json", "checkout-kwd.json", "checkout-sar.json", "checkout-invalid.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
		if name != "checkout-invalid.json" {
			bodies = append(bodies, mutations(t, b)...)
		}
	}
	if len(bodies) < 200 {
		t.Fatalf("only %d bodies to compare", len(bodies))
	}

	// One merchant per (merchant_code, currency) the bodies carry.
	type merchantKey struct{ code, currency string }
	keys := map[merchantKey]string{}
	taken := map[string]string{} // code -> currency
	var merchants []sandbox.Merchant
	merchantFor := func(body []byte) (key, region string) {
		var head struct {
			MerchantCode any `json:"merchant_code"`
			Payment      struct {
				Currency any `json:"currency"`
			} `json:"payment"`
		}
		_ = json.Unmarshal(body, &head)
		code, _ := head.MerchantCode.(string)
		cur, _ := head.Payment.Currency.(string)
		if cur != "AED" && cur != "KWD" && cur != "SAR" {
			cur = "AED"
		}
		region = "ae"
		if cur == "SAR" {
			region = "sa"
		}
		if code == "" {
			return "sk_test_anyone", region
		}
		k := merchantKey{code, cur}
		if key, ok := keys[k]; ok {
			return key, region
		}
		if taken[code] != "" {
			return "", "" // a code already sold in another currency
		}
		taken[code] = cur
		key = "sk_test_m" + strconv.Itoa(len(keys))
		keys[k] = key
		merchants = append(merchants, sandbox.Merchant{Code: code, Region: region, Currency: cur, Name: code,
			TestKey: key, TokensEnabled: true})
		return key, region
	}
	type request struct {
		body        []byte
		key, region string
	}
	var reqs []request
	skipped := 0
	for _, b := range bodies {
		key, region := merchantFor(b)
		if key == "" {
			skipped++
			continue
		}
		reqs = append(reqs, request{b, key, region})
	}
	merchants = append(merchants, sandbox.Merchant{Code: "anyone", Region: "ae", Currency: "AED", Name: "anyone", TestKey: "sk_test_anyone"})
	sb, err := sandbox.New(sandbox.Options{Merchants: merchants, NoRequestLog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	clients := map[string]*http.Client{
		"ae": {Transport: sb.Transport("ae")},
		"sa": {Transport: sb.Transport("sa")},
	}

	accepted := 0
	for _, r := range reqs {
		status, answer := post(t, clients[r.region], r.key, r.body)
		sandboxTook := status == http.StatusOK
		v := api.ValidateCheckout(r.body, nil)
		if sandboxTook != (v == nil) {
			t.Errorf("verdicts differ on\n%s\nsandbox: %d %s\nclient: %v", r.body, status, answer, v)
		}
		if sandboxTook {
			accepted++
		}
	}
	if accepted == 0 || accepted == len(reqs) {
		t.Fatalf("%d of %d accepted: the comparison tells nothing", accepted, len(reqs))
	}
	t.Logf("%d bodies, %d accepted by both, %d refused by both (%d left out: their merchant_code was already used with another currency)",
		len(reqs), accepted, len(reqs)-accepted, skipped)
}

func post(t *testing.T, c *http.Client, key string, body []byte) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1/api/v2/checkout", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// corpus reads the stored entries of FuzzValidateCheckout.
func corpus(t *testing.T) [][]byte {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", "FuzzValidateCheckout")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(string(raw), "\n", 3)
		if len(lines) < 2 || lines[0] != "go test fuzz v1" {
			t.Fatalf("%s: not a corpus entry", e.Name())
		}
		arg := strings.TrimSpace(lines[1])
		if !strings.HasPrefix(arg, "[]byte(") || !strings.HasSuffix(arg, ")") {
			t.Fatalf("%s: not a []byte entry", e.Name())
		}
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(arg, "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		out = append(out, []byte(s))
	}
	if len(out) == 0 {
		t.Fatal("empty corpus")
	}
	return out
}

// mutations changes one field of body at a time: removed, null, empty,
// blank, and, for a string, the value with a blank around it, a JSON
// number, and an amount outside the grammar; for a number, a float and a
// string.
func mutations(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var paths [][]string
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch n := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(n))
			for k := range n {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := append(append([]string{}, path...), k)
				paths = append(paths, p)
				walk(n[k], p)
			}
		case []any:
			for i, e := range n {
				p := append(append([]string{}, path...), strconv.Itoa(i))
				paths = append(paths, p)
				walk(e, p)
			}
		}
	}
	walk(decode(t, body), nil)
	var out [][]byte
	for _, p := range paths {
		orig := lookup(decode(t, body), p)
		values := []any{remove{}, nil, "", " ", true, []any{}, map[string]any{}}
		switch o := orig.(type) {
		case string:
			values = append(values, " "+o, json.Number("12"), "1e3", "+1", ".5", "0", "0.0", "-1", "115.5", "1.005", "1.0001", "a\nb")
		case json.Number:
			values = append(values, json.Number(o.String()+".0"), o.String(), json.Number("0"), json.Number("-1"))
		}
		for _, v := range values {
			root := decode(t, body)
			set(root, p, v)
			b, err := json.Marshal(root)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

type remove struct{}

func decode(t *testing.T, b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func lookup(v any, path []string) any {
	for _, p := range path {
		switch n := v.(type) {
		case map[string]any:
			v = n[p]
		case []any:
			i, _ := strconv.Atoi(p)
			v = n[i]
		}
	}
	return v
}

func set(root any, path []string, value any) {
	parent := lookup(root, path[:len(path)-1])
	last := path[len(path)-1]
	switch n := parent.(type) {
	case map[string]any:
		if _, del := value.(remove); del {
			delete(n, last)
		} else {
			n[last] = value
		}
	case []any:
		i, _ := strconv.Atoi(last)
		if _, del := value.(remove); del {
			n[i] = nil
		} else {
			n[i] = value
		}
	default:
		panic(fmt.Sprintf("no parent at %v", path))
	}
}
