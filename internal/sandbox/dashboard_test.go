package sandbox

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/chromedp/chromedp"
)

// dash sends a request to the dashboard or a control endpoint as the
// developer's browser on the same machine would, over no connection.
func (e *env) dash(method, path string, form url.Values, headers map[string]string) resp {
	e.t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req := httptest.NewRequest(method, path, body)
	req.RemoteAddr = "127.0.0.1:40002"
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	e.sb.Handler("ae").ServeHTTP(w, req)
	return resp{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

func wantContains(t *testing.T, page string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(page, w) {
			t.Fatalf("page lacks %q", w)
		}
	}
}

// The page lists what the region has, newest first, with the buttons each
// payment's status allows, and never a webhook's header value.
func TestDashboardPage(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	closed := e.liveClosed("100.00")
	authorized := e.authorized("20.00")
	created := e.createSession(checkoutBody("ae-sandbox", "AED", "30.00"), aeTest).Payment.ID
	other := e.createSession(checkoutBody("sa-sandbox", "SAR", "40.00"), saTest).Payment.ID
	d := e.openDispute(closed, map[string]any{"reason": "not_delivered", "amount": "25.00"})
	e.registerPaymentHook(aeLive, "https://hooks.shop-example.com/pay", map[string]any{"title": "X-Shop-Secret", "value": "hush-hush-value-77"})

	r := e.dash("GET", "/_sandbox/", nil, nil)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %s", r.status, r.header)
	}
	if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Fatalf("CSP %q", csp)
	}
	page := string(r.body)
	wantContains(t, page,
		`id="approve-`+created+`"`, `id="reject-`+created+`"`, `id="cancel-`+created+`"`,
		`id="expire-auth-`+authorized+`"`, `id="dispute-`+closed+`"`,
		`id="resolve-`+d.ID+`"`, `data-payment="`+closed+`"`,
		"100.00 AED", "25.00 AED", "not_delivered", `<td class="n">14</td>`,
		"https://hooks.shop-example.com/pay", "X-Shop-Secret", `id="advance-1d"`)
	for _, never := range []string{"hush-hush", "value-77", other, "<script", "src=", "<link"} {
		if strings.Contains(page, never) {
			t.Fatalf("page holds %q", never)
		}
	}
	// Newest first: the created payment was made after the closed one.
	if strings.Index(page, `id="payment-`+created) > strings.Index(page, `id="payment-`+closed) {
		t.Fatal("payments are not newest first")
	}
	// No button offered for a move the status does not allow.
	if strings.Contains(page, `id="approve-`+authorized) || strings.Contains(page, `id="dispute-`+authorized) {
		t.Fatal("an AUTHORIZED payment offers approve or dispute")
	}
	// The sa listener shows the sa payment only.
	req := httptest.NewRequest("GET", "/_sandbox/", nil)
	req.RemoteAddr = "127.0.0.1:1"
	w := httptest.NewRecorder()
	e.sb.Handler("sa").ServeHTTP(w, req)
	if !strings.Contains(w.Body.String(), other) || strings.Contains(w.Body.String(), created) {
		t.Fatal("the sa dashboard should show the sa payments only")
	}
}

// Each button makes its move and sends the browser back to the page; a
// refused move shows the page with the refusal and its status.
func TestDashboardButtons(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	post := func(path string, form url.Values) resp {
		t.Helper()
		return e.dash("POST", path, form, map[string]string{"Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"})
	}
	back := func(r resp, done string) {
		t.Helper()
		if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/_sandbox/?done="+done) {
			t.Fatalf("%s: %d %s %s", done, r.status, r.header.Get("Location"), r.body)
		}
		loc := r.header.Get("Location")
		page := string(e.dash("GET", loc, nil, nil).body)
		if !strings.Contains(page, `id="message"`) {
			t.Fatalf("%s: the page does not say what was done", done)
		}
	}
	for _, c := range []struct{ action, status string }{
		{"approve", wire.StatusAuthorized}, {"reject", wire.StatusRejected}, {"cancel", wire.StatusExpired},
	} {
		id := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest).Payment.ID
		back(post("/_sandbox/dashboard/payments/"+id+"/"+c.action, url.Values{}), c.action)
		if got := e.get(id).Status; got != c.status {
			t.Fatalf("%s: %s", c.action, got)
		}
	}
	id := e.authorized("10")
	back(post("/_sandbox/dashboard/payments/"+id+"/expire-auth", url.Values{}), "expire-auth")
	if p := e.get(id); p.ExpiresAt == nil || p.ExpiresAt.After(testStart) {
		t.Fatalf("authorization not expired: %v", p.ExpiresAt)
	}

	closed := e.liveClosed("80.00")
	r := post("/_sandbox/dashboard/payments/"+closed+"/dispute", url.Values{"reason": {"identity_theft"}, "amount": {"30.00"}})
	back(r, "dispute")
	disputeID := strings.TrimPrefix(r.header.Get("Location"), "/_sandbox/?done=dispute&id=")
	if d := e.getDispute(disputeID); d.Status != "new" || d.Amount != "30.00" || d.Reason != "identity_theft" {
		t.Fatalf("dispute %+v", d)
	}
	back(post("/_sandbox/dashboard/disputes/"+disputeID+"/resolve", url.Values{"status": {"declined"}}), "resolve")
	if d := e.getDispute(disputeID); d.Status != "declined" {
		t.Fatalf("dispute %s", d.Status)
	}

	back(post("/_sandbox/dashboard/clock/advance", url.Values{"by": {"1d"}}), "advance")
	if now, _ := e.sb.Now(context.Background()); !now.Equal(testStart.Add(24 * time.Hour)) {
		t.Fatalf("clock %s", now)
	}

	// Refusals: the page again, with the refusal and the service's status.
	for _, c := range []struct {
		path   string
		form   url.Values
		status int
		msg    string
	}{
		{"/_sandbox/dashboard/payments/" + id + "/approve", nil, 400, "only CREATED payments can be approved"},
		{"/_sandbox/dashboard/payments/" + unknownID + "/reject", nil, 404, "no such payment"},
		{"/_sandbox/dashboard/payments/" + id + "/explode", nil, 404, "no such payment action"},
		{"/_sandbox/dashboard/disputes/" + disputeID + "/resolve", url.Values{"status": {"cancelled"}}, 409, "already resolved"},
		{"/_sandbox/dashboard/disputes/" + disputeID + "/resolve", url.Values{"status": {"new"}}, 400, "use one of"},
		{"/_sandbox/dashboard/clock/advance", url.Values{"by": {"soon"}}, 400, "invalid duration"},
		{"/_sandbox/dashboard/deliveries/" + unknownID + "/resend", nil, 404, "no such delivery"},
		{"/_sandbox/dashboard/deliveries/nope/resend", nil, 400, "invalid delivery id"},
	} {
		if c.form == nil {
			c.form = url.Values{}
		}
		r := post(c.path, c.form)
		if r.status != c.status || !strings.Contains(string(r.body), `id="error"`) || !strings.Contains(string(r.body), c.msg) {
			t.Fatalf("%s: %d, want %d and %q; %s", c.path, r.status, c.status, c.msg, r.body)
		}
	}

	// The dashboard answers loopback clients only, as the control endpoints do.
	req := httptest.NewRequest("GET", "/_sandbox/", nil) // from 192.0.2.1
	w := httptest.NewRecorder()
	e.sb.Handler("ae").ServeHTTP(w, req)
	if w.Code != 403 {
		t.Fatalf("remote client: %d", w.Code)
	}
}

// A GET never changes state: the page ignores what its query says, and a
// button's path answers no GET.
func TestDashboardGetChangesNothing(t *testing.T) {
	e := newEnv(t, Options{})
	id := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest).Payment.ID
	for _, path := range []string{
		"/_sandbox/?done=approve&id=" + id,
		"/_sandbox/dashboard/payments/" + id + "/approve",
		"/_sandbox/dashboard/clock/advance?by=1d",
		"/_sandbox/payments/" + id + "/approve",
	} {
		e.dash("GET", path, nil, nil)
	}
	if p := e.get(id); p.Status != wire.StatusCreated {
		t.Fatalf("a GET moved the payment to %s", p.Status)
	}
	if off, _ := e.sb.ClockOffset(context.Background()); off != 0 {
		t.Fatalf("a GET moved the clock by %s", off)
	}
	// The message comes from known actions only.
	page := string(e.dash("GET", "/_sandbox/?done=%3Cb%3Evisit+evil&id="+id, nil, nil).body)
	if strings.Contains(page, `id="message"`) || strings.Contains(page, "evil") {
		t.Fatal("the page words a message the query made up")
	}
	page = string(e.dash("GET", "/_sandbox/?done=advance&by=forever", nil, nil).body)
	if strings.Contains(page, `id="message"`) {
		t.Fatal("the page words an advance by a non-duration")
	}
	if r := e.dash("GET", "/_sandbox", nil, nil); r.status != 301 || r.header.Get("Location") != "/_sandbox/" {
		t.Fatalf("/_sandbox: %d %s", r.status, r.header.Get("Location"))
	}
}

// The browser guard, over real connections: another site's pages may
// neither post to the control endpoints and the dashboard, nor reach them
// under a rebound name; curl and the CLI (no Origin) and the page itself
// may.
func TestSandboxGuardRefusesOtherSites(t *testing.T) {
	e := newDisputeEnv(t, Options{PublicURLs: map[string]string{"ae": "https://tunnel.shop-example.com"}})
	srv := httptest.NewServer(e.sb.Handler("ae"))
	defer srv.Close()
	own := srv.URL // http://127.0.0.1:PORT
	hostPort := strings.TrimPrefix(own, "http://")
	send := func(method, path string, headers map[string]string) resp {
		t.Helper()
		req, err := http.NewRequest(method, own+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range headers {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(res.Body)
		return resp{status: res.StatusCode, header: res.Header, body: buf.Bytes()}
	}
	created := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)
	id := created.Payment.ID
	closed := e.liveClosed("50.00")

	crossSite := []map[string]string{
		{"Origin": "https://evil.example"},
		{"Origin": "null"},
		{"Origin": "http://localhost:3000"},             // another port is another origin
		{"Origin": "https://" + hostPort},               // another scheme too
		{"Sec-Fetch-Site": "cross-site"},                // a browser that sends no Origin
		{"Origin": own, "Sec-Fetch-Site": "cross-site"}, // the browser's word wins
	}
	statePaths := []string{
		"/_sandbox/payments/" + id + "/approve",
		"/_sandbox/checkout/" + created.ID + "/reject",
		"/_sandbox/payments/" + id + "/cancel",
		"/_sandbox/payments/" + id + "/expire-auth",
		"/_sandbox/payments/" + closed + "/dispute",
		"/_sandbox/clock/advance?by=1h",
		"/_sandbox/reset",
		"/_sandbox/dashboard/payments/" + id + "/approve",
		"/_sandbox/dashboard/clock/advance",
		"/_sandbox/hpp/" + created.ID + "/approve",
	}
	for _, h := range crossSite {
		for _, path := range statePaths {
			r := send("POST", path, h)
			if r.status != 403 || !strings.Contains(string(r.body), "request from another site refused") {
				t.Fatalf("POST %s with %v: %d %s", path, h, r.status, r.body)
			}
		}
	}
	if p := e.get(id); p.Status != wire.StatusCreated {
		t.Fatalf("a refused request moved the payment to %s", p.Status)
	}
	if off, _ := e.sb.ClockOffset(context.Background()); off != 0 {
		t.Fatalf("a refused request moved the clock by %s", off)
	}

	// DNS rebinding: a name that is neither an address, localhost, nor the
	// public URL's host is refused, on reads too.
	for _, host := range []string{"evil.example:" + strings.Split(hostPort, ":")[1], "evil.example", "127.0.0.1.evil.example"} {
		for _, c := range []struct{ method, path string }{{"GET", "/_sandbox/"}, {"GET", "/_sandbox/clock"}, {"GET", "/_sandbox/deliveries"}, {"POST", "/_sandbox/reset"}} {
			r := send(c.method, c.path, map[string]string{"Host": host})
			if r.status != 403 || !strings.Contains(string(r.body), "is not this sandbox's address") {
				t.Fatalf("%s %s with Host %s: %d %s", c.method, c.path, host, r.status, r.body)
			}
		}
	}
	// The service's own paths too: the built-in keys are public, and a
	// rebound page would use them (a container names the sandbox with
	// --allowed-host).
	if r := send("GET", "/api/v2/payments/"+id, map[string]string{"Host": "sandbox:8700", "Authorization": "Bearer " + aeTest}); r.status != 403 || !strings.Contains(string(r.body), "is not this sandbox's address") {
		t.Fatalf("API under another name: %d %s", r.status, r.body)
	}
	if r := send("GET", "/api/v2/payments/"+id, map[string]string{"Host": "localhost:8700", "Authorization": "Bearer " + aeTest}); r.status != 200 {
		t.Fatalf("API as localhost: %d %s", r.status, r.body)
	}

	// Accepted: addresses, localhost and the public URL's host; the page's
	// own origin (as reached, or the public URL); no Origin at all.
	port := strings.Split(hostPort, ":")[1]
	for _, host := range []string{hostPort, "localhost:" + port, "LOCALHOST", "app.localhost:" + port, "[::1]:" + port, "10.0.0.7:" + port, "tunnel.shop-example.com"} {
		if r := send("GET", "/_sandbox/clock", map[string]string{"Host": host}); r.status != 200 {
			t.Fatalf("Host %s: %d %s", host, r.status, r.body)
		}
	}
	if r := send("POST", "/_sandbox/clock/advance?by=1m", nil); r.status != 200 {
		t.Fatalf("no Origin: %d %s", r.status, r.body)
	}
	if r := send("POST", "/_sandbox/clock/advance?by=1m", map[string]string{"Origin": own, "Sec-Fetch-Site": "same-origin"}); r.status != 200 {
		t.Fatalf("own origin: %d %s", r.status, r.body)
	}
	if r := send("POST", "/_sandbox/clock/advance?by=1m", map[string]string{"Host": "localhost:" + port, "Origin": "http://localhost:" + port}); r.status != 200 {
		t.Fatalf("own origin as localhost: %d %s", r.status, r.body)
	}
	if r := send("POST", "/_sandbox/hpp/"+created.ID+"/approve", map[string]string{"Origin": "https://tunnel.shop-example.com"}); r.status != http.StatusSeeOther {
		t.Fatalf("the hosted page under its public URL: %d %s", r.status, r.body)
	}
	if p := e.get(id); p.Status != wire.StatusAuthorized {
		t.Fatalf("payment %s", p.Status)
	}
	// GET is never refused for its Origin: it changes nothing.
	if r := send("GET", "/_sandbox/", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); r.status != 200 {
		t.Fatalf("GET with a foreign Origin: %d", r.status)
	}

	// The embedded sandbox (no connection) keeps working under the names
	// the CLI gives it.
	req := httptest.NewRequest("POST", "http://sandbox.invalid/_sandbox/clock/advance?by=1m", nil)
	req.RemoteAddr = "127.0.0.1:0"
	w := httptest.NewRecorder()
	e.sb.Handler("ae").ServeHTTP(w, req)
	if w.Code != 200 {
		t.Fatalf("in-process request: %d %s", w.Code, w.Body)
	}
}

// The dashboard's resend is the one of bnpl sandbox deliveries resend: a
// new attempt of the same delivery, now, with the webhook's current header;
// refused for a webhook that is gone.
func TestDashboardResendIsTheDeliveriesResend(t *testing.T) {
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true})
	h := newHookReceiver(t, nil)
	hook := e.registerPaymentHook(aeTest, h.srv.URL+"/hook", map[string]any{"title": "X-Hook", "value": "v4lue-of-the-header"})
	e.authorized("10.00")
	first := h.wait(t, 1)
	list, err := e.sb.Deliveries(context.Background(), "", "", 10)
	if err != nil || len(list) != 1 {
		t.Fatalf("deliveries %v %v", list, err)
	}
	again, err := e.sb.Resend(context.Background(), strings.ToUpper(list[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	second := h.wait(t, 2)[1]
	if again.DeliveryID != list[0].ID || again.Event != "authorized" || !again.Resend {
		t.Fatalf("resent %+v", again)
	}
	if !bytes.Equal(second.body, first[0].body) || second.header.Get("X-Hook") != "v4lue-of-the-header" {
		t.Fatalf("resent body %s header %q", second.body, second.header.Get("X-Hook"))
	}
	if r := e.call("DELETE", "/api/v1/webhooks/"+hook, aeTest, nil, nil); r.status != 200 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	_, err = e.sb.Resend(context.Background(), list[0].ID)
	if ae, ok := err.(*edge.Refusal); !ok || ae.Status != 409 || !strings.Contains(ae.Message, "was removed") {
		t.Fatalf("resend to a removed webhook: %v", err)
	}
}

// The dashboard in a real headless browser: approve a payment with a
// click and see its status change, open a dispute, resend a delivery that
// a local receiver counts; a screenshot is kept in the test's directory.
func TestDashboardInBrowser(t *testing.T) {
	needBrowser(t)
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true, PublicURLs: map[string]string{}})
	h := newHookReceiver(t, nil)
	e.registerPaymentHook(aeTest, h.srv.URL+"/hook", map[string]any{"title": "X-Hook", "value": "never-on-the-page-42"})
	srv := httptest.NewServer(e.sb.Handler("ae"))
	defer srv.Close()
	closed := e.liveClosed("120.00")
	pay := e.createSession(checkoutBody("ae-sandbox", "AED", "250.00"), aeTest).Payment.ID

	ctx := browser(t, 2*time.Minute, chromedp.WindowSize(1400, 1000))

	// The browser starts with the first run and lives as long as its
	// context: start it on ctx, not on a step's shorter one.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("browser: start %s: %v", chromium, err)
	}
	// step runs actions with a bound of their own, and on failure shows
	// the page the browser is on.
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("body")))
			t.Fatalf("browser: %s: %v\npage: %s", what, err, page)
		}
	}
	status := func(id string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#payment-`+id+` td.status`)))
		if err != nil {
			t.Fatalf("browser: read the status of %s: %v", id, err)
		}
		return strings.TrimSpace(s)
	}
	step("open the dashboard",
		chromedp.Navigate(srv.URL+"/_sandbox/"),
		chromedp.WaitVisible(chromedp.ID("approve-"+pay)),
	)
	if got := status(pay); got != wire.StatusCreated {
		t.Fatalf("status before the click %q", got)
	}

	// Approve with a click: the page comes back with the payment AUTHORIZED.
	step("approve",
		chromedp.Click(chromedp.ID("approve-"+pay)),
		chromedp.WaitVisible(chromedp.CSS(`#payment-`+pay+` td.status[data-status="AUTHORIZED"]`)),
	)
	if got := status(pay); got != wire.StatusAuthorized {
		t.Fatalf("status after the click %q", got)
	}
	if p := e.get(pay); p.Status != wire.StatusAuthorized {
		t.Fatalf("payment %s", p.Status)
	}

	// Open a dispute with a click on the live CLOSED payment.
	step("open a dispute",
		chromedp.Click(chromedp.ID("dispute-"+closed)),
		chromedp.WaitVisible(chromedp.CSS(`#disputes tr[data-payment="`+closed+`"] td.status[data-status="new"]`)),
	)

	// The approval was delivered to the receiver; resend it with a click.
	h.wait(t, 1)
	list, err := e.sb.Deliveries(context.Background(), "payment", pay, 10)
	if err != nil || len(list) != 1 {
		t.Fatalf("deliveries of %s: %v %v", pay, list, err)
	}
	for list[0].Status == outbox.DeliveryPending { // recorded just after the receiver answered
		select {
		case <-ctx.Done():
			t.Fatal("the delivery was never recorded as delivered")
		case <-time.After(10 * time.Millisecond):
		}
		if list, err = e.sb.Deliveries(context.Background(), "payment", pay, 10); err != nil {
			t.Fatal(err)
		}
	}
	step("resend",
		chromedp.Navigate(srv.URL+"/_sandbox/"),
		chromedp.WaitVisible(chromedp.ID("resend-"+list[0].ID)),
		chromedp.Click(chromedp.ID("resend-"+list[0].ID)),
		chromedp.WaitVisible(chromedp.ID("message")),
	)
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("message")))
	if err != nil || !strings.Contains(msg, "Queued delivery") {
		t.Fatalf("message %q %v", msg, err)
	}
	got := h.wait(t, 2)
	if !bytes.Equal(got[0].body, got[1].body) {
		t.Fatalf("resent a different notification:\n%s\n%s", got[0].body, got[1].body)
	}

	// Reload to show the resent delivery, then keep a screenshot.
	step("reload",
		chromedp.Navigate(srv.URL+"/_sandbox/"),
		chromedp.WaitVisible(chromedp.ID("webhooks")),
	)
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, "never-on-the-page") || !strings.Contains(html, "X-Hook") {
		t.Fatal("the page must show the header's title and never its value")
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("browser: screenshot: %v", err)
	}
	shot := filepath.Join(t.TempDir(), "dashboard.png")
	if err := os.WriteFile(shot, png, 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	if dir := os.Getenv("BNPL_KEEP_SCREENSHOT"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "dashboard.png"), png, 0o644)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
}

// The request log on the page: the listener's requests, newest first, a
// refusal with its error; no key; and a sandbox without a log says so.
func TestDashboardRequestLog(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	if r := e.call("GET", "/api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6", aeTest, nil, nil); r.status != 404 {
		t.Fatalf("get: %d %s", r.status, r.body)
	}
	page := string(e.dash("GET", "/_sandbox/", nil, nil).body)
	wantContains(t, page, "Request log", "/api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6", "not_found: no such payment")
	if strings.Contains(page, aeTest) {
		t.Fatal("the page shows the secret key")
	}

	off := newDisputeEnv(t, Options{NoRequestLog: true})
	wantContains(t, string(off.dash("GET", "/_sandbox/", nil, nil).body), `id="no-request-log"`)
}
