package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// maxAnswer bounds an answer read from the sandbox.
const maxAnswer = 8 << 20

// Target is the sandbox a replay talks to: a client whose transport
// reaches it (in-process or over HTTP), and its base URL.
type Target struct {
	Client *http.Client
	Base   string
	// Merchants are the sandbox's merchants (the built-in ones unless
	// told otherwise).
	Merchants []sandbox.Merchant
	// Hermetic is set for a sandbox that looks no host name up, and so
	// never delivers to a named webhook.
	Hermetic bool
}

// Answer is what the sandbox answered.
type Answer struct {
	Status int
	Type   string
	Header http.Header
	Body   []byte
}

// Do sends one request to the sandbox.
func (t *Target) Do(ctx context.Context, method, path, query string, h http.Header, body []byte) (*Answer, error) {
	u := strings.TrimRight(t.Base, "/") + path
	if query != "" {
		u += "?" + query
	}
	var in io.Reader = http.NoBody
	if len(body) > 0 {
		in = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, in)
	if err != nil {
		return nil, err
	}
	if h != nil {
		req.Header = h
	}
	resp, err := t.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the sandbox did not answer %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("reading the sandbox's answer to %s %s: %w", method, path, err)
	}
	return &Answer{Status: resp.StatusCode, Type: resp.Header.Get("Content-Type"), Header: resp.Header, Body: b}, nil
}

// control calls one of the sandbox's own endpoints with a JSON body and
// answers the JSON it got, or an error naming the refusal.
func (t *Target) control(ctx context.Context, path string, body any) ([]byte, error) {
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	ans, err := t.Do(ctx, http.MethodPost, path, "", http.Header{"Content-Type": {"application/json"}}, b)
	if err != nil {
		return nil, err
	}
	if ans.Status != http.StatusOK {
		return nil, fmt.Errorf("the sandbox refused %s with %d: %s", path, ans.Status, strings.TrimSpace(string(ans.Body)))
	}
	return ans.Body, nil
}

// get reads a resource with a key; ok is false unless it answered 200.
func (t *Target) get(ctx context.Context, path, key string) (map[string]any, bool) {
	ans, err := t.Do(ctx, http.MethodGet, path, "", http.Header{"Authorization": {"Bearer " + key}}, nil)
	if err != nil || ans.Status != http.StatusOK {
		return nil, false
	}
	v, ok := decode(ans.Body)
	if !ok {
		return nil, false
	}
	obj, ok := v.(map[string]any)
	return obj, ok
}

// Region is the region of a recording: the one of the currency of its
// first checkout the service took (SAR is KSA's), what the service did
// telling it before what the recording's head says (a CLI given only a
// base URL takes ae for any); else as recorded, else told by the currency
// of its first checkout, else ae.
func Region(rec *Recording) string {
	for _, x := range rec.Exchanges {
		if x.IsService() && x.Status/100 == 2 && strings.HasSuffix(x.Path, "/checkout") {
			if c := checkoutCurrency(x); c != "" {
				return currencyRegion(c, "ae")
			}
		}
	}
	if rec.Meta.Region != "" {
		return rec.Meta.Region
	}
	for _, x := range rec.Exchanges {
		if strings.HasSuffix(x.Path, "/checkout") && strings.Contains(string(x.body()), `"SAR"`) {
			return "sa"
		}
	}
	return "ae"
}

// Embedded is a fresh sandbox for the recording, reached in-process (a
// long recording's state in a private temporary file): the service's rules (webhooks on
// loopback refused, no host name looked up), and the merchants the
// recording's keys stand for (PlanMerchants). A recording that shows a webhook on loopback accepted
// was not made with the service, which refuses them, but with a sandbox
// that admits them (--allow-local-webhooks): the sandbox in memory then
// admits them too. close releases it.
func Embedded(rec *Recording) (*Target, func(), error) {
	merchants := PlanMerchants(rec)
	opts := sandbox.Options{Merchants: merchants, NoRequestLog: true, AllowLocalWebhooks: LoopbackAdmitted(rec)}
	// A long recording's state goes to a private temporary directory
	// (0700, removed on close), where SQLite holds a bounded cache of it,
	// so that what the replay makes does not stay in memory; a short one's
	// (and any where no directory can be made) stays in memory, quicker.
	var dir string
	var err error
	if len(rec.Exchanges) >= fileStateFrom {
		if dir, err = os.MkdirTemp("", "bnpl-verify-*"); err == nil {
			opts.StatePath = filepath.Join(dir, "state.db")
		}
	}
	sb, err := sandbox.New(opts)
	if err != nil {
		if dir != "" {
			os.RemoveAll(dir)
		}
		return nil, nil, err
	}
	t := &Target{Client: &http.Client{Transport: sb.Transport(Region(rec))}, Base: "http://127.0.0.1", Merchants: merchants, Hermetic: true}
	return t, func() {
		sb.Close()
		if dir != "" {
			os.RemoveAll(dir)
		}
	}, nil
}

// fileStateFrom is the number of exchanges from which Embedded keeps the
// sandbox's state in a file.
var fileStateFrom = 2000

// Remote is a running sandbox at base, reached over HTTP.
func Remote(base string, timeout time.Duration) *Target {
	return &Target{Client: &http.Client{Timeout: timeout}, Base: strings.TrimRight(base, "/"), Merchants: sandbox.BuiltinMerchants()}
}

// LoopbackAdmitted tells whether the recording shows a webhook on
// loopback registered with success.
func LoopbackAdmitted(rec *Recording) bool {
	for _, x := range rec.Exchanges {
		if !x.IsService() || x.Status < 200 || x.Status > 299 || !strings.Contains(x.Path, "webhooks") {
			continue
		}
		var body struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(x.body(), &body) != nil {
			continue
		}
		if u, err := url.Parse(body.URL); err == nil && loopbackName(u.Hostname()) {
			return true
		}
	}
	return false
}

func loopbackName(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
