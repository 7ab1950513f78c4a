package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bnpl-cli/bnpl/cmd"
)

// TestMain lets the test binary be the real bnpl inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"bnpl": func() { os.Exit(cmd.Execute()) },
	})
}

// TestScripts runs testdata/script/*.txtar against the real binary. Each
// script gets its own home, config and state directories, and two free
// loopback addresses ($AE_ADDR, $SA_ADDR) for a sandbox it starts itself.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
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
				addr, err := freeAddr()
				if err != nil {
					return err
				}
				env.Setenv(k, addr)
			}
			env.Setenv("AE_URL", "http://"+env.Getenv("AE_ADDR"))
			env.Setenv("SA_URL", "http://"+env.Getenv("SA_ADDR"))
			env.Setenv("HOOK_URL", "http://"+env.Getenv("HOOK_ADDR"))
			return copyExamples(filepath.Join(env.WorkDir, "testdata"))
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfor":    waitFor,
			"exits":      exits,
			"stdout2env": stdoutToEnv,
		},
	})
}

// copyExamples puts the repository's example payloads and CSVs in the
// script's testdata folder, so scripts use the very files the README and
// the guides name.
func copyExamples(dst string) error {
	files, err := filepath.Glob("testdata/*")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
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
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644); err != nil {
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

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("no free port: %w", err)
	}
	defer l.Close()
	return strings.Replace(l.Addr().String(), "[::1]", "127.0.0.1", 1), nil
}

// stdout2env VAR sets VAR to the last command's stdout, trimmed, so that a
// script can pass an id one command printed to the next.
func stdoutToEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: stdout2env VAR")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
}
