package pipe

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A reader that leaves before bnpl has written (`bnpl … | head -1`, or a
// script that closes the pipe) ends the run quietly: exit 0, nothing on
// stderr, as cli-surface.md promises, rather than the death by SIGPIPE
// that a shell reports as 141. The read end is closed before bnpl starts,
// so its first write fails whatever the machine's speed.
func TestClosedStdoutExitsZero(t *testing.T) {
	env := pipeEnv(t)
	if out, err := runQuiet(env, "sandbox", "seed", "--file", "../../testdata/fixtures/every-state.yaml"); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"payments", "list", "--all"},
		{"payments", "list", "--all", "-o", "json"},
		{"payments", "list", "-o", "jsonl", "--jq", ".id"},
		{"payments", "list", "--buyer", "a"},
		{"payments", "get", "f1a7e000-0000-4000-8000-000000000003"},
		{"sandbox", "logs", "--all"},
		{"sandbox", "logs", "--all", "-o", "json"},
		{"sandbox", "deliveries", "-o", "csv"},
		{"api", "GET", "/api/v2/payments", "--paginate"},
		{"help", "exit-codes"},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd := exec.Command("bnpl", append([]string{"-q"}, args...)...)
		cmd.Env = env
		cmd.Stdout = w
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		w.Close()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			t.Errorf("bnpl %s to a closed pipe: %v (exit code %d); want exit 0\n%s", strings.Join(args, " "), err, exit.ExitCode(), stderr.String())
		case err != nil:
			t.Fatal(err)
		case stderr.Len() > 0:
			t.Errorf("bnpl %s to a closed pipe: stderr %q, want nothing", strings.Join(args, " "), stderr.String())
		}
	}
}

func runQuiet(env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("bnpl", args...)
	cmd.Env = env
	return cmd.CombinedOutput()
}
