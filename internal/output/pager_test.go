package output

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestPagerFrom(t *testing.T) {
	haveLess := func(string) (string, error) { return "/usr/bin/less", nil }
	noLess := func(string) (string, error) { return "", errors.New("not found") }
	for _, c := range []struct {
		env  map[string]string
		look func(string) (string, error)
		want string
	}{
		{map[string]string{"TERM": "xterm"}, haveLess, "less -FRX"},
		{map[string]string{"TERM": "xterm"}, noLess, ""},
		{map[string]string{"TERM": "dumb"}, haveLess, ""},
		{map[string]string{}, haveLess, ""},
		{map[string]string{"TERM": "dumb", "PAGER": "more"}, haveLess, "more"},
		{map[string]string{"TERM": "xterm", "PAGER": "more", "BNPL_PAGER": "most -s"}, haveLess, "most -s"},
		{map[string]string{"TERM": "xterm", "PAGER": "more", "BNPL_PAGER": ""}, haveLess, ""},
		{map[string]string{"TERM": "xterm", "PAGER": "cat"}, haveLess, ""},
		{map[string]string{"TERM": "xterm", "PAGER": ""}, haveLess, ""},
	} {
		lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
		if got := pagerFrom(lookup, c.look); got != c.want {
			t.Errorf("%v: pager %q, want %q", c.env, got, c.want)
		}
	}
}

// Piped output never starts a pager, whatever is set.
func TestNoPagerWhenPiped(t *testing.T) {
	ios, _, out, _ := Test()
	ios.SetPager("false")
	if err := ios.StartPager(); err != nil || ios.IsPaging() {
		t.Fatalf("a pager started off a terminal: %v", err)
	}
	if ios.Out != out {
		t.Fatal("stdout was replaced")
	}
}

// The pager starts at the first write to stdout, not before; a write to
// stderr while it runs ends it first, and what stdout gets after goes to
// the terminal.
func TestPagerStartsAtTheFirstWrite(t *testing.T) {
	dir := t.TempDir()
	paged := filepath.Join(dir, "paged.txt")
	ios, _, out, errOut := Test()
	ios.SetStdoutTTY(true)
	script := filepath.Join(dir, "pager.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >\""+paged+"\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	ios.SetPager(script)
	if err := ios.StartPager(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = ios.IsPaging() }()
	}
	if ios.IsPaging() {
		t.Fatal("paging before anything was written")
	}
	if _, err := ios.Out.Write([]byte("row 1\n")); err != nil {
		t.Fatal(err)
	}
	if !ios.IsPaging() {
		t.Fatal("no pager after the first write")
	}
	if _, err := ios.ErrOut.Write([]byte("showing 1 of 2\n")); err != nil {
		t.Fatal(err)
	}
	if ios.IsPaging() {
		t.Fatal("the pager still runs after a notice")
	}
	if _, err := ios.Out.Write([]byte("row 2\n")); err != nil {
		t.Fatal(err)
	}
	ios.StopPager()
	wg.Wait()
	b, err := os.ReadFile(paged)
	if err != nil || string(b) != "row 1\n" {
		t.Errorf("the pager got %q (%v), want the first row", b, err)
	}
	if out.String() != "row 2\n" || errOut.String() != "showing 1 of 2\n" {
		t.Errorf("terminal: stdout %q, stderr %q", out, errOut)
	}
}

// A command that writes nothing never starts a pager.
func TestPagerNotStartedForNothing(t *testing.T) {
	ios, _, _, _ := Test()
	ios.SetStdoutTTY(true)
	ios.SetPager("false")
	if err := ios.StartPager(); err != nil {
		t.Fatal(err)
	}
	ios.StopPager()
	if ios.IsPaging() {
		t.Fatal("paging after StopPager")
	}
}

// In a CI job (plain progress) a pager would wait for keys nobody types:
// none starts, unless a person is at the terminal (stdin is one).
func TestNoPagerInCIWithoutAPerson(t *testing.T) {
	ios, _, out, _ := Test()
	ios.SetStdoutTTY(true)
	ios.SetPlainProgress(true)
	ios.SetPager("false")
	if err := ios.StartPager(); err != nil || ios.Out != out {
		t.Fatalf("a pager was set up in CI with no terminal on stdin (%v)", err)
	}
	ios.SetStdinTTY(true)
	if err := ios.StartPager(); err != nil || ios.Out == out {
		t.Fatalf("no pager in CI for a person at the terminal (%v)", err)
	}
	ios.StopPager()
}
