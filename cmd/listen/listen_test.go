package listen

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhouse/displaywidth"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

const hookSecret = "hook-secret-0123456789"

func TestValidate(t *testing.T) {
	cases := []struct {
		o    Options
		want string
	}{
		{Options{Addr: "127.0.0.1:8787"}, ""},
		{Options{Addr: "8787"}, "invalid --addr"},
		{Options{Addr: ":9", HeaderTitle: "X-Hook"}, "needs --header-value-env"},
		{Options{Addr: ":9", HeaderValueEnv: "H"}, "needs --header-title"},
		{Options{Addr: ":9", HeaderTitle: "X Hook", HeaderValueEnv: "H"}, "not an HTTP token"},
		{Options{Addr: ":9", ForwardTo: "localhost:3000"}, "invalid --forward-to"},
		// Titles of headers bnpl sets on every delivery are not a secret's.
		{Options{Addr: ":9", HeaderTitle: "User-Agent", HeaderValueEnv: "H"}, "is a header bnpl sets on every delivery"},
		{Options{Addr: ":9", HeaderTitle: "content-type", HeaderValueEnv: "H"}, "is a header bnpl sets"},
		{Options{Addr: ":9", HeaderTitle: "Bnpl-Sandbox-Secret", HeaderValueEnv: "H"}, "is a header bnpl sets"},
		{Options{Addr: ":9", Max: -1}, "--max"},
		{Options{Addr: ":9", FailFirst: -1}, "--fail-first"},
		{Options{Addr: ":9", FailFirst: 3, Max: 1}, ""},
	}
	for _, c := range cases {
		err := c.o.validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || cmdutil.ExitCode(err) != 2) {
			t.Errorf("%+v: got %v, want %q", c.o, err, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	n := webhook.Classify([]byte(`{"status":"new","dispute_id":"9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11","payment_id":"p","amount":"50.00","currency":"AED"}`))
	n.ReceivedAt = time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	n.Verified = true
	n.Forward = &webhook.ForwardResult{Status: 204}
	ios, _, _, _ := output.Test()
	want := "2026-01-15 10:00:00Z  dispute  9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11  new              50.00 AED  ✓  → 204"
	if got := Line(ios, n); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// The one money format, whatever the sender wrote; the chosen time
	// style; the status coloured when stdout takes colour.
	n = webhook.Classify([]byte(`{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","status":"closed","amount":"12.5","currency":"KWD"}`))
	n.ReceivedAt = time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	ios.SetTimeStyle(output.TimeRelative)
	ios.SetNow(func() time.Time { return n.ReceivedAt.Add(3 * time.Hour) })
	ios.SetColorEnabled(true)
	want = "3 hours ago  payment  3fa85f64-5717-4562-b3fc-2c963f66afa6  \x1b[32mclosed\x1b[0m          12.500 KWD"
	if got := Line(ios, n); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// A capture shows what it moved, the newest capture, not the payment's
	// whole amount.
	n = webhook.Classify([]byte(`{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","status":"AUTHORIZED","amount":"123.50","currency":"AED",` +
		`"captures":[{"amount":"20","created_at":"2026-01-15T09:00:00Z"},{"amount":"10","created_at":"2026-01-15T09:59:00Z"}]}`))
	n.Event = "captured"
	ios.SetColorEnabled(false)
	if got := Line(ios, n); !strings.Contains(got, "captured         10.00 AED") {
		t.Errorf("a capture's line shows %q, want the 10.00 AED it moved", got)
	}
	// Under 100 columns, verified and forwarded too.
	n = webhook.Classify([]byte(`{"status":"evidence_req","dispute_id":"9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11","amount":"125000.00","currency":"AED"}`))
	n.ReceivedAt, n.Verified = time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC), true
	ios.SetTimeStyle(output.TimeUTC)
	if got := Line(ios, n); displaywidth.String(got) > 100 {
		t.Errorf("a line %d wide: %q", displaywidth.String(got), got)
	}
	// A repeated delivery is marked, within 100 columns.
	n.Repeat = true
	if got := Line(ios, n); !strings.HasSuffix(got, "✓↺") || displaywidth.String(got) > 100 {
		t.Errorf("a repeat's line %d wide: %q", displaywidth.String(got), got)
	}
	n.Verified = false
	if got := Line(ios, n); !strings.HasSuffix(got, "AED ↺") {
		t.Errorf("an unverified repeat's line: %q", got)
	}
	// A status from the sender cannot drive the terminal.
	n = webhook.Classify([]byte(`{"id":"p","status":"new\u001b[2J","amount":"1.00","currency":"AED"}`))
	if got := Line(ios, n); strings.Contains(got, "\x1b[2J") {
		t.Errorf("escape from the sender reached the line: %q", got)
	}
}

// listening starts listen on a loopback port for notifications with
// X-Hook: hookSecret, stopping after max, the first failFirst failed on
// purpose. It answers the address and the output; done waits for the run
// to end (what says what should have ended it) and fails t on its error.
func listening(t *testing.T, max, failFirst int) (addr string, out, errOut *bytes.Buffer, done func(what string)) {
	t.Helper()
	ios, _, out, errOut := output.Test()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	o := &Options{
		Addr: addr, HeaderTitle: "X-Hook", HeaderValueEnv: "HOOK", Max: max, FailFirst: failFirst, IO: ios,
		Getenv: func(k string) string { return map[string]string{"HOOK": hookSecret}[k] },
		Listen: func(string, string) (net.Listener, error) { return ln, nil },
	}
	ended := make(chan error, 1)
	go func() { ended <- listenRun(context.Background(), o) }()
	return addr, out, errOut, func(what string) {
		t.Helper()
		select {
		case err := <-ended:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("listen did not stop " + what)
		}
	}
}

// post sends a payment notification with X-Hook: value (none for "") and
// answers the status.
func post(t *testing.T, addr, body, value string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/hooks", strings.NewReader(body))
	if value != "" {
		req.Header.Set("X-Hook", value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestRunPrintsJSONLinesAndStopsAtMax(t *testing.T) {
	addr, out, errOut, done := listening(t, 1, 0)
	const body = `{"id":"p1","status":"authorized","amount":"10.00","currency":"AED"}`
	if got := post(t, addr, body, "wrong"); got != 401 {
		t.Errorf("wrong value: %d", got)
	}
	if got := post(t, addr, body, hookSecret); got != 200 {
		t.Errorf("right value: %d", got)
	}
	done("after --max 1")
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatalf("not one JSON line: %q", out)
	}
	if line["kind"] != "payment" || line["id"] != "p1" || line["verified"] != true {
		t.Errorf("line %v", line)
	}
	stderr := errOut.String()
	if !strings.Contains(stderr, "listening on http://"+addr) || !strings.Contains(stderr, "has the wrong value") || !strings.Contains(stderr, "received 1 notification(s)") {
		t.Errorf("stderr %q", stderr)
	}
	if strings.Contains(stderr+out.String(), hookSecret) {
		t.Error("the secret was printed")
	}
}

func TestRunNeedsTheValue(t *testing.T) {
	ios, _, _, _ := output.Test()
	o := &Options{Addr: "127.0.0.1:0", HeaderTitle: "X-Hook", HeaderValueEnv: "HOOK", IO: ios, Getenv: func(string) string { return "" }, Listen: net.Listen}
	if err := listenRun(context.Background(), o); cmdutil.ExitCode(err) != 2 || !strings.Contains(err.Error(), "HOOK is empty or unset") {
		t.Errorf("got %v", err)
	}
}

func TestRunReportsFailuresOnPurpose(t *testing.T) {
	addr, out, errOut, done := listening(t, 1, 1)
	var got []int
	for range 2 {
		got = append(got, post(t, addr, `{"id":"p1","status":"captured","amount":"10.00","currency":"AED"}`, hookSecret))
	}
	if got[0] != 500 || got[1] != 200 {
		t.Errorf("statuses %v, want [500 200]", got)
	}
	done("after the retry")
	stderr := errOut.String()
	for _, want := range []string{
		"answering the first 1 with 500",
		"answered 500 to the payment p1 notification to /hooks from 127.0.0.1:",
		"failed on purpose, 1 of 1 (--fail-first); the sender should retry it",
		"received 1 notification(s), after failing 1 on purpose",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("a failure on purpose reads as a warning:\n%s", stderr)
	}
	if strings.Count(out.String(), "\n") != 1 {
		t.Errorf("stdout holds more than the accepted notification: %q", out)
	}
	if strings.Contains(stderr+out.String(), hookSecret) {
		t.Error("the secret was printed")
	}
}

// With --addr HOST:0 the system picks the port: the recording names the
// address listen was bound to in each notification's URL, not the 0 that
// was asked for.
func TestRecordNamesTheBoundAddress(t *testing.T) {
	ios, _, _, _ := output.Test()
	har := filepath.Join(t.TempDir(), "notifications.har")
	bound := make(chan string, 1)
	o := &Options{
		Addr: "127.0.0.1:0", Record: har, Max: 1, IO: ios,
		Getenv: func(string) string { return "" },
		Listen: func(network, addr string) (net.Listener, error) {
			ln, err := net.Listen(network, addr)
			if err == nil {
				bound <- ln.Addr().String()
			}
			return ln, err
		},
	}
	done := make(chan error, 1)
	go func() { done <- listenRun(context.Background(), o) }()
	var addr string
	select {
	case addr = <-bound:
	case err := <-done:
		t.Fatalf("listen ended before listening: %v", err)
	}
	resp, err := http.Post("http://"+addr+"/hooks/bnpl", "application/json", strings.NewReader(`{"id":"p1","status":"authorized","amount":"10.00","currency":"AED"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(har)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"url":"http://`+addr+`/hooks/bnpl"`) || strings.Contains(string(b), ":0/") {
		t.Errorf("the notification's URL is not at %s:\n%s", addr, b)
	}
}
