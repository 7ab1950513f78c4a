package disputes

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// fakeService records every request and answers with handle.
type fakeService struct {
	mu       sync.Mutex
	requests []recorded
	handle   func(w http.ResponseWriter, r *http.Request, body []byte)
}

type recorded struct {
	Method, Path, Query, ContentType string
	Body                             []byte
}

func newFakeService(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, body []byte)) (*fakeService, *httptest.Server) {
	t.Helper()
	fs := &fakeService{handle: handle}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fs.mu.Lock()
		fs.requests = append(fs.requests, recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), body})
		fs.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fs.handle(w, r, body)
	}))
	t.Cleanup(srv.Close)
	return fs, srv
}

func (fs *fakeService) count() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return len(fs.requests)
}

// deps are the dependencies a run function gets, over a fake service.
type deps struct {
	out, errOut *bytes.Buffer
	ios         *output.IOStreams
	live        bool
	target      func() (*config.Target, error)
	client      func() (*api.Client, error)
	printer     func() (*output.Printer, error)
	notices     []string
}

func newDeps(t *testing.T, baseURL string, live bool) *deps {
	t.Helper()
	ios, _, out, errOut := output.Test()
	d := &deps{out: out, errOut: errOut, ios: ios, live: live}
	key := "sk_test_0123456789abcdef"
	if live {
		key = "sk_live0123456789abcdef"
	}
	d.target = func() (*config.Target, error) {
		return &config.Target{Live: live, SecretKey: key, BaseURL: baseURL, MerchantCode: "shop-ae", Region: "ae"}, nil
	}
	d.client = func() (*api.Client, error) {
		return api.New(api.Options{BaseURL: baseURL, SecretKey: key, MerchantCode: "shop-ae", Retries: 0})
	}
	d.printer = func() (*output.Printer, error) { return output.NewPrinter(ios, output.Options{Format: "json"}) }
	return d
}

func (d *deps) notice(format string, args ...any) {
	d.notices = append(d.notices, format)
	_ = args
}

func writeJSON(w http.ResponseWriter, v any) {
	_ = json.NewEncoder(w).Encode(v)
}
