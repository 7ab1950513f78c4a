package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bnpl-cli/bnpl/internal/har"

	"github.com/bnpl-cli/bnpl/test/internal/testbnpl"
)

// notTheService are the scripts whose recordings are not verified, each
// with its reason: they talk on purpose to something the service is not
// (a sandbox set to fail or to limit, its state or clock moved through its
// own commands, a stand-in server, a proxy or replay answering for it),
// so a fresh sandbox's answers are meant to differ from theirs.
var notTheService = map[string]string{
	"apply_resume":              "a sandbox started with --faults (injected 409s and 500s)",
	"bulk_full_resume":          "a sandbox started with --faults (injected 409s and 500s)",
	"bulk_seeded_faults":        "a sandbox started with --faults (injected 409s and 500s)",
	"bulk_settle_unknown":       "a sandbox started with --faults (injected 409s and 500s)",
	"bulk_unknown_then_next":    "a sandbox started with --faults (injected 409s and 500s)",
	"errors_json":               "a sandbox started with --faults (injected 409s and 500s)",
	"listen_chaos":              "a sandbox started with --faults, its deliveries failed on purpose",
	"sandbox_faults":            "a sandbox started with --faults (injected 409s and 500s)",
	"sandbox_ratelimit":         "a sandbox with --rate-limit whose bucket the test drains from outside bnpl, unrecorded",
	"sandbox_clock_damaged":     "a sandbox whose clock state is damaged on purpose (500s)",
	"sandbox_seed_clock":        "payments seeded and the clock moved through the sandbox's own commands (sandbox seed, sandbox clock)",
	"sandbox_seed_serve":        "a sandbox with --seed 42 started twice at one address, to show the same ids handed out again: one recording of two services",
	"sandbox_export":            "payments seeded and the state reset through the sandbox's own commands (sandbox seed, sandbox reset)",
	"docs_examples":             "payments seeded through the sandbox's own command (sandbox seed)",
	"sandbox_verbs":             "the state reset and the clock moved through the sandbox's own commands (sandbox reset, sandbox clock)",
	"sandbox_follow":            "the state reset and the clock moved through the sandbox's own commands (sandbox reset, sandbox clock)",
	"secrets_echoed":            "bnpl talks to an echo server standing in for the service, to show what is sent",
	"secrets_echoed_ok":         "bnpl talks to an echo server standing in for the service, to show what is sent",
	"webhooks_refusals":         "bnpl talks to a counting receiver standing in for the service, to show nothing is sent",
	"dispute_webhooks_refusals": "bnpl talks to a counting receiver standing in for the service, to show nothing is sent",
	"sandbox_record":            "bnpl talks through a sandbox record proxy, which answers a live key 403 itself",
	"sandbox_verify_flows":      "bnpl talks to sandbox replay, which answers from a recording, and through sandbox record",
	"sandbox_record_encoded":    "bodies sent in content encodings (gzip, snappy) to a sandbox record proxy, to test what it keeps",
	"sandbox_deliveries":        "one address served twice, with --allow-local-webhooks and then without: one recording of two services set up otherwise",
	"sandbox_serve_sigterm":     "the served sandbox's state taken over by the embedded one: a payment made at one address, captured at another",
}

// TestScriptsVerifyClean runs every script test with each exchange the
// bnpl of the script has with a service recorded by the recording proxy's
// own code (one recording per script and host), then verifies each
// recording with bnpl sandbox verify against a fresh sandbox: a sandbox
// that answers as the service would is found to differ nowhere, in any
// flow the scripts have.
func TestScriptsVerifyClean(t *testing.T) {
	dir := t.TempDir()
	if keep := os.Getenv("TEST_RECORD_KEEP"); keep != "" {
		// The recordings are kept there, to look into a difference.
		dir = keep
	}
	t.Run("record", func(t *testing.T) {
		testscript.Run(t, scriptParams(func(env *testscript.Env) error {
			name := strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")
			if why, ok := notTheService[name]; ok {
				env.T().Skip("not recorded: " + why)
			}
			env.Setenv(testbnpl.RecordDirEnv, dir)
			env.Setenv(testbnpl.RecordNameEnv, name)
			return nil
		}))
	})
	placeNotifications(t, dir)
	files, err := filepath.Glob(filepath.Join(dir, "*.har"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var total verifyTotal
	for _, f := range files {
		rep := verifyRecording(t, f)
		if rep == nil {
			continue
		}
		total.add(rep)
		for _, d := range rep.Differences {
			t.Errorf("%s: #%d %s %s %s %s: service %s, sandbox %s", filepath.Base(f), d.N, d.Method, d.Path, d.Field, d.Kind, d.Want, d.Got)
		}
		left := 0
		for _, l := range rep.LeftOut {
			left += l.Count
		}
		if got := rep.Exchanges + rep.Notifications + left; got != rep.Entries {
			t.Errorf("%s: %d exchange(s), %d notification(s) and %d left out make %d, not the file's %d entries",
				filepath.Base(f), rep.Exchanges, rep.Notifications, left, got, rep.Entries)
		}
	}
	t.Logf("verified %d recording(s) of %d script(s): %d exchange(s) (%d compared), %d notification(s) (%d compared), %d difference(s)",
		len(files), len(total.scripts), total.exchanges, total.compared, total.notifications, total.notificationsCompared, total.differences)
}

// verifyReport is what this test reads of sandbox verify -o json.
type verifyReport struct {
	Exchanges             int `json:"exchanges"`
	Compared              int `json:"compared"`
	Notifications         int `json:"notifications"`
	NotificationsCompared int `json:"notifications_compared"`
	Entries               int `json:"entries"`
	Differences           []struct {
		N      int    `json:"request"`
		Method string `json:"method"`
		Path   string `json:"path"`
		Field  string `json:"field"`
		Kind   string `json:"kind"`
		Want   string `json:"service"`
		Got    string `json:"sandbox"`
	} `json:"differences"`
	LeftOut []struct {
		Why   string `json:"why"`
		Count int    `json:"count"`
	} `json:"left_out"`
	file string
}

type verifyTotal struct {
	scripts                                                                map[string]bool
	exchanges, compared, notifications, notificationsCompared, differences int
}

func (v *verifyTotal) add(r *verifyReport) {
	if v.scripts == nil {
		v.scripts = map[string]bool{}
	}
	name, _, _ := strings.Cut(filepath.Base(r.file), "@")
	v.scripts[name] = true
	v.exchanges += r.Exchanges
	v.compared += r.Compared
	v.notifications += r.Notifications
	v.notificationsCompared += r.NotificationsCompared
	v.differences += len(r.Differences)
}

// verifyRecording runs bnpl sandbox verify FILE -o json (exit 0, or 15
// for differences) and reads its report.
func verifyRecording(t *testing.T, file string) *verifyReport {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command("bnpl", "sandbox", "verify", file, "-o", "json")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 15) {
		t.Errorf("bnpl sandbox verify %s: %v\n%s%s", filepath.Base(file), err, stdout.String(), stderr.String())
		return nil
	}
	rep := &verifyReport{file: file}
	if err := json.Unmarshal(stdout.Bytes(), rep); err != nil {
		t.Errorf("bnpl sandbox verify %s -o json: %v\n%s", filepath.Base(file), err, stdout.String())
		return nil
	}
	return rep
}

// placeNotifications adds each notification a script's bnpl listen
// accepted to the recording of that script that holds its payment (or
// dispute): the one of the sandbox that sent it. One whose payment no
// recording holds (a payment the script made through a sandbox's own
// paths, unrecorded) is left out, and counted in the log.
func placeNotifications(t *testing.T, dir string) {
	t.Helper()
	lists, err := filepath.Glob(filepath.Join(dir, "*.notifications"))
	if err != nil {
		t.Fatal(err)
	}
	placed, unplaced := 0, 0
	for _, list := range lists {
		name := strings.TrimSuffix(filepath.Base(list), ".notifications")
		recordings, err := filepath.Glob(filepath.Join(dir, name+"@*.har"))
		if err != nil {
			t.Fatal(err)
		}
		held := map[string][]byte{}
		for _, r := range recordings {
			if held[r], err = os.ReadFile(r); err != nil {
				t.Fatal(err)
			}
		}
		f, err := os.Open(list)
		if err != nil {
			t.Fatal(err)
		}
		_, err = har.Scan(list, f, har.Limits{}, func(_ int, e *har.Entry) error {
			var body struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(e.RequestBody(), &body) != nil || body.ID == "" {
				unplaced++
				return nil
			}
			for _, r := range recordings {
				if bytes.Contains(held[r], []byte(body.ID)) {
					w, err := har.OpenWriter(r, har.LogMeta{}, "test", 0)
					if err != nil {
						return err
					}
					defer w.Close()
					placed++
					return w.Append(*e)
				}
			}
			unplaced++
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("notifications: %d placed with the exchanges of their payment, %d whose payment no recording holds", placed, unplaced)
}
