package terminal

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The request log and the delivery attempts as a person sees them: a
// table fitted to the terminal, times in the one display format, a 4xx
// with its message; --follow ends on Ctrl-C with 130.
func TestSandboxLogsAndDeliveriesOnPTY(t *testing.T) {
	env := ptyEnv(t)
	bnplOut(t, env, "webhooks", "add", "https://hooks.example.com/bnpl", "-q")
	authorizedPayment(t, env)

	logs := startPTY(t, env, "sandbox", "logs", "--time", "utc")
	if code := logs.waitExit(20 * time.Second); code != 0 {
		t.Fatalf("sandbox logs exited %d:\n%s", code, logs.output())
	}
	out := logs.output()
	for _, want := range []string{"METHOD", "STATUS", "PATH", "ERROR", "POST    200", "/api/v2/checkout", "ae-sandbox (test)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log's table lacks %q:\n%s", want, out)
		}
	}

	dels := startPTY(t, env, "sandbox", "deliveries")
	if code := dels.waitExit(20 * time.Second); code != 0 {
		t.Fatalf("sandbox deliveries exited %d:\n%s", code, dels.output())
	}
	out = dels.output()
	for _, want := range []string{"ID", "EVENT", "STATUS", "RESULT", "authorized", "failed", "not sent: "} {
		if !strings.Contains(out, want) {
			t.Errorf("the deliveries table lacks %q:\n%s", want, out)
		}
	}

	follow := startPTY(t, env, "sandbox", "logs", "--follow", "--interval", "50ms", "--status", "4xx")
	follow.waitOutput("following; Ctrl-C to stop")
	bnplExit(t, env, "payments", "get", "3fa85f64-5717-4562-b3fc-2c963f66afa6")
	follow.waitOutput("no such payment")
	follow.send("\x03")
	if code := follow.waitExit(10 * time.Second); code != 130 {
		t.Fatalf("--follow ended with %d on Ctrl-C, want 130:\n%s", code, follow.output())
	}
}

// bnplExit runs bnpl for its effect, whatever it exits with.
func bnplExit(t *testing.T, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("bnpl", args...)
	cmd.Env = env
	_ = cmd.Run()
}
