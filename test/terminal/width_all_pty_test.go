package terminal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// commandPaths lists every command of the tree that help is shown for.
func commandPaths() [][]string {
	root := cmd.NewRootCmd(cmdutil.New("test", "", ""))
	var paths [][]string
	cmd.VisitShown(root, func(_ *cobra.Command, path []string) { paths = append(paths, path) })
	return paths
}

// On a terminal 80 columns wide, every command's help fits, examples and
// all: no line is wider than the terminal, so none is folded by it.
func TestEveryHelpFitsEightyColumnsOnPTY(t *testing.T) {
	env := ptyEnv(t)
	paths := commandPaths()
	if len(paths) < 50 {
		t.Fatalf("only %d commands found", len(paths))
	}
	for _, p := range paths {
		args := append(append([]string(nil), p...), "--help")
		got, code := onPTYAt(t, env, 80, nil, args...)
		if code != 0 {
			t.Fatalf("bnpl %s: exit %d\n%s", strings.Join(args, " "), code, got)
		}
		if wide := wideLines(got, 80); len(wide) > 0 {
			t.Errorf("bnpl %s at 80 columns: %d lines wider:\n%s", strings.Join(args, " "), len(wide), strings.Join(wide, "\n"))
		}
	}
}

// Representative outputs people read at 80 columns, on stdout and stderr
// alike (tables too wide for the terminal, details, errors and hints, a
// LIVE question with its amount): no line is wider than the terminal, and
// an amount, an id, a flag or a command is never parted over two lines.
func TestOutputsFitEightyColumnsOnPTY(t *testing.T) {
	env := ptyEnv(t)
	// A webhook, so that the sandbox records delivery attempts.
	bnplOut(t, env, "webhooks", "add", "https://hooks.example.com/bnpl", "-q")
	id := authorizedPayment(t, env)
	bnplOut(t, env, "payments", "capture", id, "--amount", "100.00", "-q")
	live := authorizedLivePayment(t, env)
	har := filepath.Join(t.TempDir(), "flow.har")
	// The date of a sandbox record's time, on the first row.
	dated := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d  `)

	for _, tc := range []struct {
		args  []string
		code  int
		whole []string
		match *regexp.Regexp
	}{
		{[]string{"payments", "list", "--columns", "id,status,buyer.name,captured,refunded,created,order.reference_id"}, 0, []string{id, "100.00 AED"}, nil},
		{[]string{"payments", "list", "--columns", "id,amount,buyer.name,reference"}, 0, []string{id}, nil},
		{[]string{"payments", "list", "--columns", "buyer"}, 0, []string{`"name":"Layla Haddad",`}, nil},
		{[]string{"payments", "list", "--buyer", "layla"}, 0, []string{"Layla Haddad"}, nil},
		{[]string{"payments", "get", id}, 0, []string{id, "1250.00 AED"}, nil},
		{[]string{"payments", "timeline", id}, 0, []string{"1250.00 AED", "100.00 AED"}, nil},
		{[]string{"payments", "get", live}, 6, []string{live, "--live", "test payments"}, nil},
		{[]string{"payments", "get", "order:ORDER-NO-SUCH-ORDER-ANYWHERE-AT-ALL"}, 6, []string{"ORDER-NO-SUCH-ORDER-ANYWHERE-AT-ALL", "--profile NAME"}, nil},
		{[]string{"payments", "capture", id, "--amount", "99999.00"}, 2, []string{id}, nil},
		{[]string{"payments", "list", "--status", "pending"}, 2, []string{"bnpl payments list --help"}, nil},
		{[]string{"payments", "list", "--buyr", "x"}, 2, []string{"--buyer"}, nil},
		{[]string{"payments", "list", "--columns", "id,buyer"}, 0, []string{id, `"name":"Layla Haddad",`}, nil},
		{[]string{"payments", "timeline", "-L", "4"}, 2, []string{"--limit", "bnpl payments list", "bnpl disputes list"}, nil},
		{[]string{"sandbox", "logs"}, 0, []string{"/api/v2/checkout"}, dated},
		// Every delivery shows its date with its time of day.
		{[]string{"sandbox", "deliveries"}, 0, []string{id}, regexp.MustCompile(`(?m)\A(.*\n)*\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ  [0-9a-f-]{36}`)},
		{[]string{"sandbox", "clock"}, 0, nil, nil},
		{[]string{"sandbox", "export", "--file", filepath.Join(t.TempDir(), "state.yaml")}, 0, nil, nil},
		{[]string{"sandbox", "record", har, "--addr", "127.0.0.1:0", "--", "bnpl", "payments", "list", "-L", "2"}, 0, []string{id, "1250.00 AED"}, nil},
		{[]string{"sandbox", "verify", har}, 0, nil, nil},
		{[]string{"sandbox", "replay", har, "--addr", "127.0.0.1:0", "--", "true"}, 15, []string{"GET /api/v2/payments"}, nil},
		{[]string{"smoke"}, 0, nil, regexp.MustCompile(`(?m)^smoke: payments list {16}passed `)},
		{[]string{"profiles", "list"}, 0, nil, nil},
		{[]string{"doctor"}, 0, nil, nil},
		{[]string{"help", "environment"}, 0, nil, nil},
		{[]string{"help", "exit-codes"}, 0, nil, nil},
	} {
		got, code := onPTYAt(t, env, 80, nil, tc.args...)
		name := "bnpl " + strings.Join(tc.args, " ")
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", name, code, tc.code, got)
			continue
		}
		if wide := wideLines(got, 80); len(wide) > 0 {
			t.Errorf("%s at 80 columns: %d lines wider:\n%s", name, len(wide), strings.Join(wide, "\n"))
		}
		for _, w := range tc.whole {
			if !strings.Contains(got, w) {
				t.Errorf("%s at 80 columns: %q is not whole on one line:\n%s", name, w, got)
			}
		}
		if tc.match != nil && !tc.match.MatchString(got) {
			t.Errorf("%s at 80 columns: nothing matches %s:\n%s", name, tc.match, got)
		}
	}

	// The LIVE question: its amount stays with its currency.
	r := startPTYAt(t, env, 80, "--live", "payments", "capture", live, "--amount", "200.00")
	r.waitOutput("Type yes")
	r.send("no\r")
	if code := r.waitExit(10 * time.Second); code != 2 {
		t.Fatalf("declined live capture: exit %d\n%s", code, r.output())
	}
	out := screen(r.output())
	if !strings.Contains(out, "200.00 AED") {
		t.Errorf("the LIVE question parts the amount from its currency:\n%s", out)
	}
	if wide := wideLines(out, 80); len(wide) > 0 {
		t.Errorf("the LIVE question at 80 columns:\n%s", strings.Join(wide, "\n"))
	}
}

// A table that streams (--all over several pages) is planned before its
// later rows arrive: amounts that grow wider on later pages stay whole and
// right-aligned under the first page's, statuses are not cut, and no line
// is wider than the terminal, at 80 and 150 columns.
func TestStreamedTableStaysAlignedOnPTY(t *testing.T) {
	env := ptyEnv(t)
	var fixture strings.Builder
	fixture.WriteString("payments:\n")
	// Newest first: the 25 payments fill two pages, the older ones (the
	// second page) with the wider amounts.
	amount := 1
	for i := range 25 {
		fmt.Fprintf(&fixture, "  - status: REJECTED\n    checkout: rejected\n    created_at: now-%dm\n    amount: \"%d.25\"\n    order: {reference_id: GROW-%02d}\n", i+1, amount, i)
		amount = amount*3/2 + 1
	}
	file := filepath.Join(t.TempDir(), "grow.yaml")
	if err := os.WriteFile(file, []byte(fixture.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	bnplOut(t, env, "sandbox", "seed", "--file", file, "-q")
	widest := fmt.Sprintf("%d.25 AED", amountAt(24))
	for _, cols := range []uint16{80, 150} {
		got, code := onPTYAt(t, env, cols, nil, "payments", "list", "--all", "--status", "rejected,expired")
		if code != 0 {
			t.Fatalf("payments list --all: exit %d\n%s", code, got)
		}
		if wide := wideLines(got, int(cols)); len(wide) > 0 {
			t.Errorf("at %d columns, lines wider:\n%s", cols, strings.Join(wide, "\n"))
		}
		if strings.Contains(got, "…") || !strings.Contains(got, widest) || !strings.Contains(got, " 1.25 AED") {
			t.Errorf("at %d columns a value is cut:\n%s", cols, got)
		}
		ends := map[int]int{}
		rows := 0
		for _, line := range strings.Split(got, "\n") {
			if strings.Contains(line, "REJECTED") {
				rows++
				ends[strings.Index(line, " AED")]++
			}
		}
		if rows != 25 || len(ends) != 1 {
			t.Errorf("at %d columns, %d rows, amounts ending at %d different columns:\n%s", cols, rows, len(ends), got)
		}
	}
}

// profiles list keeps the base URL, which tells a sandbox from production,
// whole at 80 and 150 columns: beside the row, or under it.
func TestProfilesListKeepsBaseURLOnPTY(t *testing.T) {
	env := ptyEnv(t)
	const base = "https://api.staging.example.com/bnpl"
	login := exec.Command("bnpl", "login", "--profile", "staging", "--region", "ae", "--merchant-code", "shop-ae",
		"--with-key", "--no-verify", "--base-url", base)
	login.Env = env
	login.Stdin = strings.NewReader("sk_test_0123456789abcdef\n")
	if out, err := login.CombinedOutput(); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	for _, cols := range []uint16{80, 150} {
		got, code := onPTYAt(t, env, cols, nil, "profiles", "list")
		if code != 0 {
			t.Fatalf("profiles list: exit %d\n%s", code, got)
		}
		if !strings.Contains(got, "BASE URL") || !strings.Contains(got, base) || strings.Contains(got, "…") {
			t.Errorf("at %d columns the base URL is not whole:\n%s", cols, got)
		}
		if wide := wideLines(got, int(cols)); len(wide) > 0 {
			t.Errorf("at %d columns, lines wider:\n%s", cols, strings.Join(wide, "\n"))
		}
	}
}

// amountAt is the whole part of the i-th amount of the streamed fixture.
func amountAt(i int) int {
	amount := 1
	for range i {
		amount = amount*3/2 + 1
	}
	return amount
}

// A timeline 100 or 110 columns wide gives its detail the room under the
// row rather than a strip of a few words a line beside it.
func TestTimelineDetailHasRoomOnPTY(t *testing.T) {
	env := ptyEnv(t)
	id := authorizedPayment(t, env)
	bnplOut(t, env, "payments", "capture", id, "--amount", "100.00", "--reference-id", "cap-1", "-q")
	bnplOut(t, env, "payments", "close", id, "-q")
	bnplOut(t, env, "payments", "refund", id, "--amount", "20.00", "--reference-id", "ref-1", "--reason", "one size too small, exchanged in store", "-q")
	for _, cols := range []uint16{100, 110} {
		got, code := onPTYAt(t, env, cols, nil, "payments", "timeline", id)
		if code != 0 {
			t.Fatalf("timeline: exit %d\n%s", code, got)
		}
		if wide := wideLines(got, int(cols)); len(wide) > 0 {
			t.Errorf("timeline at %d columns: lines wider:\n%s", cols, strings.Join(wide, "\n"))
		}
		if !strings.Contains(got, "reference ref-1; one size too small, exchanged in store") {
			t.Errorf("at %d columns the refund's detail is not on one line:\n%s", cols, got)
		}
	}
}

// The banner of sandbox serve on a terminal 80 columns wide: no line is
// wider, and the dashboard's URLs are whole.
func TestServeBannerFitsEightyColumnsOnPTY(t *testing.T) {
	env := ptyEnv(t)
	r := startPTYAt(t, env, 80, "sandbox", "serve", "--state", ":memory:", "--ae-addr", "127.0.0.1:0", "--sa-addr", "127.0.0.1:0",
		"--rate-limit", "--faults", "500-after=0.1,latency=5ms", "--seed", "7", "--allow-local-webhooks")
	r.waitOutput("sa-sandbox")
	out := screen(r.output())
	if wide := wideLines(out, 80); len(wide) > 0 {
		t.Errorf("the banner at 80 columns:\n%s", strings.Join(wide, "\n"))
	}
	if n := len(regexp.MustCompile(`http://127\.0\.0\.1:\d+/_sandbox/`).FindAllString(out, -1)); n != 2 {
		t.Errorf("the dashboard's URLs are not whole (%d):\n%s", n, out)
	}
	r.send("\x03")
	if code := r.waitExit(20 * time.Second); code != 0 {
		t.Fatalf("serve ended with %d on Ctrl-C:\n%s", code, r.output())
	}
}
