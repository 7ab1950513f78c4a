package terminal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Long output on a terminal goes through the pager a person chose
// (BNPL_PAGER, then PAGER); piped output never does. The pager here is a
// script that records what it was given.
func TestPagerOnPTY(t *testing.T) {
	base := ptyEnv(t)
	dir := t.TempDir()
	got := filepath.Join(dir, "paged.txt")
	pager := filepath.Join(dir, "pager.sh")
	script := "#!/bin/sh\necho \"args: $*\" >\"" + got + "\"\ncat >>\"" + got + "\"\necho PAGER-DONE\n"
	if err := os.WriteFile(pager, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(append([]string(nil), base...), "BNPL_PAGER="+pager+" --from-bnpl", "PAGER=/bin/false")
	id, _ := bnplIn(t, env, "", "-q", "checkout", "create", "--input", "../../testdata/checkout.json", "--order", "PAGED-1", "--jq", ".payment.id")
	id = strings.TrimSpace(id)

	// On a terminal: payments get goes through the pager, which gets the
	// whole view (the table, as a terminal shows it) and the terminal.
	r := startPTY(t, env, "payments", "get", "order:PAGED-1")
	if code := r.waitExit(20 * time.Second); code != 0 {
		t.Fatalf("payments get on a terminal: exit %d\n%s", code, r.output())
	}
	if !strings.Contains(r.output(), "PAGER-DONE") {
		t.Errorf("the pager did not run:\n%s", r.output())
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatalf("the pager received nothing: %v", err)
	}
	paged := string(b)
	for _, want := range []string{"args: --from-bnpl", "ID:          " + id, "Reference:   PAGED-1", "Timeline"} {
		if !strings.Contains(paged, want) {
			t.Errorf("the pager's input lacks %q:\n%s", want, paged)
		}
	}
	if strings.Contains(paged, "order PAGED-1 is payment") {
		t.Errorf("a notice went to the pager instead of stderr:\n%s", paged)
	}

	// BNPL_PAGER wins over PAGER; set empty, it turns paging off (PAGER
	// is /bin/false here, which would fail the command if it ran).
	os.Remove(got)
	off := append(append([]string(nil), base...), "BNPL_PAGER=", "PAGER="+pager)
	out := onPTY(t, off, "payments", "list", "--status", "new")
	if _, err := os.Stat(got); err == nil || strings.Contains(out, "PAGER-DONE") {
		t.Errorf("BNPL_PAGER= still paged:\n%s", out)
	}
	if !strings.Contains(out, id) {
		t.Errorf("payments list without a pager lacks the payment:\n%s", out)
	}

	// Long help goes through the pager too, wrapped to the terminal.
	os.Remove(got)
	r = startPTYAt(t, env, 80, "sandbox", "serve", "--help")
	if code := r.waitExit(20 * time.Second); code != 0 || !strings.Contains(r.output(), "PAGER-DONE") {
		t.Fatalf("help on a terminal: exit %d, paged: %v\n%s", code, strings.Contains(r.output(), "PAGER-DONE"), r.output())
	}
	if b, err := os.ReadFile(got); err != nil || !strings.Contains(string(b), "Usage:") || len(wideLines(string(b), 80)) > 0 {
		t.Errorf("the pager got no help fitted to 80 columns (%v):\n%s", err, b)
	}
	if help, _ := bnplIn(t, env, "", "sandbox", "serve", "--help"); !strings.Contains(help, "Usage:") || strings.Contains(help, "PAGER-DONE") {
		t.Errorf("piped help went through the pager, or is missing: %q", help)
	}
	os.Remove(got)

	// Piped: never, whatever is set.
	stdout, _ := bnplIn(t, env, "", "payments", "list", "--status", "new")
	if _, err := os.Stat(got); err == nil || strings.Contains(stdout, "PAGER-DONE") {
		t.Errorf("piped output went through the pager: %q", stdout)
	}
	if !strings.Contains(stdout, id) {
		t.Errorf("piped payments list lacks the payment: %q", stdout)
	}
}

// A search shows its progress on the terminal while it reads, and the
// pager starts only with the first row: before, a person watched a blank
// pager for the whole search, and a search that found nothing started one
// to page nothing.
func TestPagerStartsWithTheFirstRowOnPTY(t *testing.T) {
	base := ptyEnv(t)
	dir := t.TempDir()
	got := filepath.Join(dir, "paged.txt")
	pager := filepath.Join(dir, "pager.sh")
	script := "#!/bin/sh\ncat >>\"" + got + "\"\necho PAGER-DONE\n"
	if err := os.WriteFile(pager, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(append([]string(nil), base...), "BNPL_PAGER="+pager)
	id := bnplOut(t, env, "-q", "checkout", "create", "--input", "../../testdata/checkout.json", "--jq", ".payment.id")

	r := startPTY(t, env, "payments", "list", "--buyer", "nobody-at-all")
	if code := r.waitExit(20 * time.Second); code != 0 {
		t.Fatalf("a search that finds nothing: exit %d\n%s", code, r.output())
	}
	if out := r.output(); strings.Contains(out, "PAGER-DONE") || !strings.Contains(out, "searching") {
		t.Errorf("a search that finds nothing: want its progress and no pager:\n%q", out)
	}
	if _, err := os.Stat(got); err == nil {
		t.Errorf("the pager ran for a search that found nothing")
	}

	r = startPTY(t, env, "payments", "list", "--buyer", "layla")
	if code := r.waitExit(20 * time.Second); code != 0 {
		t.Fatalf("a search that finds one: exit %d\n%s", code, r.output())
	}
	out := r.output()
	if !strings.Contains(out, "searching") || !strings.Contains(out, "PAGER-DONE") {
		t.Errorf("a search that finds one: want its progress, then the pager:\n%q", out)
	}
	if b, err := os.ReadFile(got); err != nil || !strings.Contains(string(b), id) {
		t.Errorf("the pager did not get the row (%v): %q", err, b)
	}
	if i, j := strings.Index(out, "searching"), strings.Index(out, "PAGER-DONE"); i > j {
		t.Errorf("the progress came after the pager:\n%q", out)
	}
}

// A notice that follows paged output ("showing 1 of 2") is written once
// the pager has ended, below what it showed, not over its screen while it
// still runs.
func TestNoticeAfterThePagerOnPTY(t *testing.T) {
	base := ptyEnv(t)
	dir := t.TempDir()
	pager := filepath.Join(dir, "pager.sh")
	if err := os.WriteFile(pager, []byte("#!/bin/sh\ncat >/dev/null\necho PAGER-DONE\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(append([]string(nil), base...), "BNPL_PAGER="+pager)
	for range 2 {
		id := bnplOut(t, env, "-q", "checkout", "create", "--input", "../../testdata/checkout.json", "--jq", ".payment.id")
		bnplOut(t, env, "-q", "sandbox", "approve", id)
	}
	r := startPTY(t, env, "payments", "list", "--limit", "1")
	if code := r.waitExit(20 * time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.output())
	}
	out := r.output()
	done, notice := strings.Index(out, "PAGER-DONE"), strings.Index(out, "showing 1 of 2")
	if done < 0 || notice < 0 || notice < done {
		t.Errorf("want the pager to end before the notice:\n%q", out)
	}
}
