package sandbox

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/chromedp/chromedp"
)

// The hosted page over plain HTTP: the page, a button, the redirect.
func TestHostedPageFlow(t *testing.T) {
	e := newEnv(t, Options{})
	noRedirect := func(method, path string) resp {
		req := httptest.NewRequest(method, path, nil)
		if method == "POST" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		req.RemoteAddr = "203.0.113.9:5555" // the customer need not be local
		w := httptest.NewRecorder()
		e.sb.Handler("ae").ServeHTTP(w, req)
		return resp{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
	}
	for _, c := range []struct {
		action, status, target string
	}{
		{"approve", wire.StatusAuthorized, "https://shop.example/ok"},
		{"reject", wire.StatusRejected, "https://shop.example/fail"},
		{"cancel", wire.StatusExpired, "https://shop.example/cancel"},
	} {
		t.Run(c.action, func(t *testing.T) {
			s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.01"), aeTest)
			u, _ := url.Parse(s.WebURL())
			page := noRedirect("GET", u.Path)
			if page.status != 200 || !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") {
				t.Fatalf("page: %d %s", page.status, page.header)
			}
			html := string(page.body)
			for _, want := range []string{`id="approve"`, `id="reject"`, `id="cancel"`, "Sandbox Store UAE", "100.01", "25.01", "Shoes", "order-1"} {
				if !strings.Contains(html, want) {
					t.Fatalf("page lacks %q", want)
				}
			}
			done := noRedirect("POST", u.Path+"/"+c.action)
			if done.status != http.StatusSeeOther {
				t.Fatalf("%s: %d %s", c.action, done.status, done.body)
			}
			if got, want := done.header.Get("Location"), c.target+"?payment_id="+s.Payment.ID; got != want {
				t.Fatalf("Location %q, want %q", got, want)
			}
			if p := e.get(s.Payment.ID); p.Status != c.status {
				t.Fatalf("payment %s, want %s", p.Status, c.status)
			}
			after := string(noRedirect("GET", u.Path).body)
			if strings.Contains(after, `id="approve"`) {
				t.Fatal("a finished checkout should offer no buttons")
			}
			again := noRedirect("POST", u.Path+"/approve")
			if again.status != 400 || !strings.Contains(string(again.body), `id="error"`) {
				t.Fatalf("second action: %d", again.status)
			}
		})
	}
	t.Run("no merchant urls", func(t *testing.T) {
		s := e.createSession(set(checkoutBody("ae-sandbox", "AED", "10"), "merchant_urls", nil), aeTest)
		u, _ := url.Parse(s.WebURL())
		done := noRedirect("POST", u.Path+"/approve")
		if done.status != 303 || done.header.Get("Location") != u.Path {
			t.Fatalf("%d %s", done.status, done.header.Get("Location"))
		}
	})
	t.Run("unknown session", func(t *testing.T) {
		wantPlain404(t, noRedirect("GET", "/_sandbox/hpp/"+unknownID))
		wantPlain404(t, noRedirect("GET", "/_sandbox/hpp/nope"))
	})
}

// The hosted page in a real headless browser: click Approve, land on the
// merchant's success URL, find the payment AUTHORIZED.
func TestHostedPageInBrowser(t *testing.T) {
	needBrowser(t)
	e := newEnv(t, Options{PublicURLs: map[string]string{}})
	mux := http.NewServeMux()
	var landed atomic.Value
	landed.Store("")
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		landed.Store(r.URL.Query().Get("payment_id"))
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><h1 id="thanks">Thank you</h1></body></html>`))
	})
	shop := httptest.NewServer(mux)
	defer shop.Close()
	srv := httptest.NewServer(e.sb.Handler("ae"))
	defer srv.Close()

	body := set(checkoutBody("ae-sandbox", "AED", "250.00"), "merchant_urls.success", shop.URL+"/ok")
	req, _ := http.NewRequest("POST", srv.URL+"/api/v2/checkout", strings.NewReader(mustJSON(t, body)))
	req.Header.Set("Authorization", "Bearer "+aeTest)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var s wire.CheckoutSession
	decodeJSON(t, res, &s)
	if !strings.HasPrefix(s.WebURL(), srv.URL) {
		t.Fatalf("web_url %s should point at the server %s", s.WebURL(), srv.URL)
	}

	ctx := browser(t, 60*time.Second)

	err = chromedp.Do(ctx,
		chromedp.Navigate(s.WebURL()),
		chromedp.WaitVisible(chromedp.ID("approve")),
	)
	if err != nil {
		t.Fatalf("browser: open the page: %v", err)
	}
	total, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("total")))
	if err != nil {
		t.Fatalf("browser: read the total: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("approve")),
		chromedp.WaitVisible(chromedp.ID("thanks")),
	)
	if err != nil {
		t.Fatalf("browser: approve: %v", err)
	}
	thanks, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("thanks")))
	if err != nil {
		t.Fatalf("browser: read the landing page: %v", err)
	}
	if !strings.Contains(total, "250.00 AED") || thanks != "Thank you" {
		t.Fatalf("total %q, landing %q", total, thanks)
	}
	if got := landed.Load().(string); got != s.Payment.ID {
		t.Fatalf("merchant got payment_id %q, want %q", got, s.Payment.ID)
	}
	if p := e.get(s.Payment.ID); p.Status != wire.StatusAuthorized {
		t.Fatalf("payment %s", p.Status)
	}
}
