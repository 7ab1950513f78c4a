package terminal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sandbox record with a live key asks first on a terminal: no records
// nothing (no file is made), yes records until Ctrl-C, which ends it with
// its summary and exit 0.
func TestRecordAsksBeforeLiveOnPTY(t *testing.T) {
	env := ptyEnv(t)
	base := servedSandbox(t, env)
	env = append(env, "BNPL_SECRET_KEY=sk_ae_sandbox", "BNPL_BASE_URL="+base, "BNPL_MERCHANT_CODE=ae-sandbox")
	file := filepath.Join(t.TempDir(), "live.har")

	r := startPTY(t, env, "sandbox", "record", file, "--addr", "127.0.0.1:0")
	r.waitOutput("LIVE: record traffic with live keys? Type yes to confirm: ")
	r.send("no\r")
	if code := r.waitExit(60 * time.Second); code != 2 {
		t.Fatalf("exit %d after no, want 2; terminal:\n%s", code, r.output())
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a declined recording made its file: %v", err)
	}

	r = startPTY(t, env, "sandbox", "record", file, "--addr", "127.0.0.1:0")
	r.waitOutput("Type yes to confirm: ")
	r.send("yes\r")
	r.waitOutput("; Ctrl-C to stop")
	r.send("\x03")
	if code := r.waitExit(60 * time.Second); code != 0 {
		t.Fatalf("exit %d after Ctrl-C, want 0; terminal:\n%s", code, r.output())
	}
	if out := r.output(); !strings.Contains(out, "recorded 0 exchange(s) in "+file) || strings.Contains(out, "sk_ae_sandbox") {
		t.Errorf("terminal:\n%s", out)
	}
}
