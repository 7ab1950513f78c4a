// Package script runs the script tests: testdata/*.txtar, each driving the
// real bnpl (this test binary, on the PATH) against a sandbox it starts.
package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bnpl-cli/bnpl/test/internal/testbnpl"
)

// TestMain lets the test binary be the real bnpl inside scripts, and the
// helper programs the scripts run beside it.
func TestMain(m *testing.M) {
	testbnpl.Main(m, map[string]func(){
		"echoserver": echoServer,
		"statesql":   stateSQL,
	})
}

// TestScripts runs testdata/*.txtar against the real binary. Each
// script gets its own home, config and state directories, and two free
// loopback addresses ($AE_ADDR, $SA_ADDR) for a sandbox it starts itself.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(nil))
}

// scriptParams are the script tests' parameters; more, when set, sets
// up each script further.
func scriptParams(more func(env *testscript.Env) error) testscript.Params {
	return testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(home, ".state"))
			env.Setenv("NO_COLOR", "1")
			// A race-built bnpl would otherwise sleep a second at every exit.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			for _, k := range []string{"AE_ADDR", "SA_ADDR", "HOOK_ADDR"} {
				addr, err := testbnpl.FreeAddr()
				if err != nil {
					return err
				}
				env.Setenv(k, addr)
			}
			env.Setenv("AE_URL", "http://"+env.Getenv("AE_ADDR"))
			env.Setenv("SA_URL", "http://"+env.Getenv("SA_ADDR"))
			env.Setenv("HOOK_URL", "http://"+env.Getenv("HOOK_ADDR"))
			// Keys "in the keychain" go to this file; a script sets
			// TEST_KEYCHAIN=none or =hang to play a machine without one.
			env.Setenv("TEST_KEYCHAIN", filepath.Join(env.WorkDir, "keychain.json"))
			if more != nil {
				if err := more(env); err != nil {
					return err
				}
			}
			return copyExamples(filepath.Join(env.WorkDir, "testdata"))
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfor":    waitFor,
			"csvcheck":   csvCheck,
			"exits":      exits,
			"stdout2env": stdoutToEnv,
			"htmlserver": htmlServer,
			"waitfile":   waitFile,
			"jsonerr":    jsonErr,
			"drain":      drainBucket,
			"untilexits": untilExits,
		},
	}
}

// examples is the repository's folder of example payloads and CSVs.
var examples = filepath.Join("..", "..", "testdata")

// copyExamples puts the repository's example payloads and CSVs in the
// script's testdata folder, so scripts use the very files the README and
// the guides name.
func copyExamples(dst string) error {
	files, err := filepath.Glob(filepath.Join(examples, "*"))
	if err != nil {
		return err
	}
	fixtures, err := filepath.Glob(filepath.Join(examples, "fixtures", "*"))
	if err != nil {
		return err
	}
	files = append(files, fixtures...)
	if err := os.MkdirAll(filepath.Join(dst, "fixtures"), 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if info, err := os.Stat(f); err != nil || info.IsDir() {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(examples, f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, rel), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// waitfor URL... polls each URL until it answers, so a script can start a
// server in the background and go on once it listens.
func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: waitfor URL...")
	}
	client := &http.Client{Timeout: time.Second}
	for _, url := range args {
		deadline := time.Now().Add(20 * time.Second)
		for {
			resp, err := client.Get(url)
			if err == nil {
				resp.Body.Close()
				break
			}
			if time.Now().After(deadline) {
				ts.Fatalf("%s did not answer: %v", url, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// exits N PROGRAM ARGS... runs the program and checks that it exits with
// exactly N, so scripts pin the documented exit codes; its stdout and stderr
// stay available to the stdout and stderr assertions that follow.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// drain URL KEY FILE keeps a sandbox's checkout bucket empty for the rest
// of the script: it posts FILE to URL/api/v2/checkout with the test KEY
// again and again, from inside the test process, until the script ends
// (60 s at most). A slow machine then cannot refill the bucket between the
// script's own requests, so a 429 does not depend on how fast processes
// start. It returns once the sandbox has answered 429.
func drainBucket(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: drain URL KEY FILE")
	}
	body := []byte(ts.ReadFile(args[2]))
	client := &http.Client{Timeout: 10 * time.Second}
	post := func() int {
		req, err := http.NewRequest("POST", args[0]+"/api/v2/checkout", bytes.NewReader(body))
		if err != nil {
			return 0
		}
		req.Header.Set("Authorization", "Bearer "+args[1])
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	limited := make(chan struct{})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var once sync.Once
		end := time.After(60 * time.Second)
		for {
			pause := time.Duration(0)
			if post() == http.StatusTooManyRequests {
				once.Do(func() { close(limited) })
				// Empty: a token comes back a second; take it soon.
				pause = 5 * time.Millisecond
			}
			select {
			case <-stop:
				return
			case <-end:
				return
			case <-time.After(pause):
			}
		}
	}()
	ts.Defer(func() { close(stop); <-done })
	select {
	case <-limited:
	case <-done:
		ts.Fatalf("drain: the sandbox at %s never answered 429", args[0])
	}
}

// untilexits CODE TRIES PROGRAM ARGS... runs the program up to TRIES times
// until it exits CODE (the last run's output stays for the assertions), for
// an outcome that a refilled token could rarely turn on one try.
func untilExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: untilexits CODE TRIES PROGRAM [ARGS...]")
	}
	want, err1 := strconv.Atoi(args[0])
	tries, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil || tries < 1 {
		ts.Fatalf("untilexits: CODE and TRIES are numbers")
	}
	got := 0
	for i := 0; i < tries; i++ {
		got = 0
		if err := ts.Exec(args[2], args[3:]...); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				ts.Fatalf("untilexits: %v", err)
			}
			got = ee.ExitCode()
		}
		if got == want {
			return
		}
	}
	ts.Fatalf("%s exited %d in each of %d tries, want %d", args[2], got, tries, want)
}

// stdout2env VAR sets VAR to the last command's stdout, trimmed, so that a
// script can pass an id one command printed to the next.
func stdoutToEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: stdout2env VAR")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
}

// htmlserver VAR starts a web server that is not the service: it answers
// every request with 200 and a page of HTML, as a base URL pointing at a
// web site would. VAR is set to its address; it stops with the script.
func htmlServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: htmlserver VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("htmlserver: %v", err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><html><head><title>Shop</title></head><body>Welcome</body></html>\n")
	})}
	go srv.Serve(l)
	ts.Defer(func() { srv.Close() })
	ts.Setenv(args[0], "http://"+l.Addr().String())
}

// waitfile FILE REGEXP polls until FILE exists and matches REGEXP, so a
// script can go on once a background command has got that far (a bulk run
// has locked and written its journal, say).
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile FILE REGEXP")
	}
	re, err := regexp.Compile(args[1])
	if err != nil {
		ts.Fatalf("waitfile: %v", err)
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && re.Match(b) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not come to match %q", args[0], args[1])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// jsonerr CODE [KEY=REGEXP...] checks the script contract of -o json on the
// last command's stderr: exactly one JSON object, newline-terminated,
// nothing else, whose exit_code is CODE and whose members KEY match
// REGEXP (strings as they are, anything else as JSON).
func jsonErr(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: jsonerr CODE [KEY=REGEXP...]")
	}
	stderr := ts.ReadFile("stderr")
	if !strings.HasSuffix(stderr, "}\n") || strings.Count(stderr, "\n") != 1 {
		ts.Fatalf("stderr is not one JSON object on one line:\n%s", stderr)
	}
	dec := json.NewDecoder(strings.NewReader(stderr))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		ts.Fatalf("stderr is not a JSON object: %v\n%s", err, stderr)
	}
	if rest, _ := io.ReadAll(dec.Buffered()); strings.TrimSpace(string(rest)) != "" {
		ts.Fatalf("stderr holds more than one JSON object:\n%s", stderr)
	}
	for k := range obj {
		if strings.ToLower(k) != k || strings.Contains(k, "-") {
			ts.Fatalf("key %q is not snake_case:\n%s", k, stderr)
		}
	}
	for _, k := range []string{"error", "exit_code"} {
		if _, ok := obj[k]; !ok {
			ts.Fatalf("no %q in the error object:\n%s", k, stderr)
		}
	}
	if got := string(obj["exit_code"]); got != args[0] {
		ts.Fatalf("exit_code is %s, want %s:\n%s", got, args[0], stderr)
	}
	for _, kv := range args[1:] {
		k, pattern, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("jsonerr: %q is not KEY=REGEXP", kv)
		}
		raw, ok := obj[k]
		if !ok {
			ts.Fatalf("no %q in the error object:\n%s", k, stderr)
		}
		value := string(raw)
		var str string
		if json.Unmarshal(raw, &str) == nil {
			value = str
		}
		if !regexp.MustCompile(pattern).MatchString(value) {
			ts.Fatalf("%s is %s, which does not match %s", k, value, pattern)
		}
	}
}
