package sandbox

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// What a process leaves pending is told once per cause and change: a
// failing receiver's retry, then nothing while nothing changes, then again
// when a new delivery waits.
func TestPendingNoticeOncePerCauseAndChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	open := func() *env {
		return newEnv(t, Options{StatePath: path, Clock: store.RealClock{}, AllowLocalWebhooks: true})
	}
	e := open()
	e.registerPaymentHook(aeTest, "http://127.0.0.1:9/dead", nil)
	s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
	if _, err := e.sb.Approve(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	// A process whose notice no one sees (a server stopping, a script)
	// leaves it untold for the next.
	if rep, err := e.sb.Shutdown(); err != nil || !rep.News {
		t.Fatalf("no news to tell: %+v %v", rep, err)
	}
	rep, err := open().sb.ShutdownTelling()
	if err != nil {
		t.Fatal(err)
	}
	notice := rep.Notice("state.db")
	if rep.Failing != 1 || !strings.Contains(notice, "1 webhook delivery is pending in state.db: 1 to receivers that failed, retried later by `bnpl sandbox serve` or the next command") {
		t.Fatalf("first notice: %+v %q", rep, notice)
	}
	// Another process that adds nothing: nothing to tell.
	quiet := open()
	if rep, _ := quiet.sb.ShutdownTelling(); rep.Pending != 1 || rep.Notice("state.db") != "" {
		t.Fatalf("told again with nothing new: %+v %q", rep, rep.Notice("state.db"))
	}
	// A new delivery waits: told again.
	again := open()
	if r := again.do("ae", "POST", "/api/v2/payments/"+s.Payment.ID+"/close", aeTest, nil); r.status != 200 {
		t.Fatalf("close: %d %s", r.status, r.body)
	}
	if rep, _ := again.sb.ShutdownTelling(); rep.Failing != 2 || !strings.HasPrefix(rep.Notice("state.db"), "2 webhook deliveries are pending") {
		t.Fatalf("not told of the new delivery: %+v %q", rep, rep.Notice("state.db"))
	}
}
