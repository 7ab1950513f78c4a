package docgen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/cmd"
	"github.com/bnpl-cli/bnpl/internal/docgen"
)

// TestCommittedReferenceIsCurrent fails when docs/commands or docs/man no
// longer match the command tree: a command, flag, help text or example
// changed without the reference being regenerated.
func TestCommittedReferenceIsCurrent(t *testing.T) {
	fresh := t.TempDir()
	if err := docgen.Generate(cmd.NewRootCmd, fresh, false); err != nil {
		t.Fatal(err)
	}
	var stale []string
	for _, sub := range []string{"commands", "man"} {
		stale = append(stale, diffDirs(t, filepath.Join(fresh, sub), filepath.Join("..", "..", "docs", sub))...)
	}
	if len(stale) > 0 {
		t.Errorf("the committed command reference is out of date; run `go generate ./...` at the repository root and commit docs/commands and docs/man:\n  %s",
			strings.Join(stale, "\n  "))
	}
}

// TestGenerateIsStable: two runs give the same bytes, so the staleness
// check above cannot fail on noise (dates, map order, the machine).
func TestGenerateIsStable(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := docgen.Generate(cmd.NewRootCmd, dir, true); err != nil {
			t.Fatal(err)
		}
	}
	for _, sub := range []string{"commands", "man", "completions"} {
		if d := diffDirs(t, filepath.Join(a, sub), filepath.Join(b, sub)); len(d) > 0 {
			t.Errorf("two runs differ: %v", d)
		}
	}
	for _, name := range []string{"bnpl.bash", "bnpl.zsh", "bnpl.fish", "bnpl.ps1"} {
		if info, err := os.Stat(filepath.Join(a, "completions", name)); err != nil || info.Size() == 0 {
			t.Errorf("completion %s: %v", name, err)
		}
	}
	page, err := os.ReadFile(filepath.Join(a, "man", "bnpl.1"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(`.TH "BNPL" "1" "" "bnpl" "bnpl manual"`)) {
		t.Errorf("man header: %s", bytes.SplitN(page, []byte("\n"), 3)[1])
	}
}

// diffDirs names the files that differ between want (just generated) and
// got, both ways.
func diffDirs(t *testing.T, want, got string) []string {
	t.Helper()
	wantFiles, gotFiles := listFiles(t, want), listFiles(t, got)
	var out []string
	for name := range wantFiles {
		if _, ok := gotFiles[name]; !ok {
			out = append(out, filepath.Join(got, name)+": missing")
			continue
		}
		a, _ := os.ReadFile(filepath.Join(want, name))
		b, _ := os.ReadFile(filepath.Join(got, name))
		if !bytes.Equal(a, b) {
			out = append(out, filepath.Join(got, name)+": differs")
		}
	}
	for name := range gotFiles {
		if _, ok := wantFiles[name]; !ok {
			out = append(out, filepath.Join(got, name)+": no longer generated")
		}
	}
	sort.Strings(out)
	return out
}

func listFiles(t *testing.T, dir string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			files[e.Name()] = true
		}
	}
	return files
}

// TestHelpTopicsHavePages: `bnpl help exit-codes` and the other topics,
// which the generators' tree walks skip, get a Markdown page and a man page
// each, carrying the topic's text.
func TestHelpTopicsHavePages(t *testing.T) {
	dir := t.TempDir()
	if err := docgen.Generate(cmd.NewRootCmd, dir, false); err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{"exit-codes", "environment", "formatting"} {
		md, err := os.ReadFile(filepath.Join(dir, "commands", "bnpl_"+topic+".md"))
		if err != nil {
			t.Fatalf("no Markdown page for help topic %s: %v", topic, err)
		}
		man, err := os.ReadFile(filepath.Join(dir, "man", "bnpl-"+topic+".1"))
		if err != nil {
			t.Fatalf("no man page for help topic %s: %v", topic, err)
		}
		if !bytes.Contains(md, []byte("## bnpl "+topic)) || !bytes.Contains(man, []byte("bnpl-"+topic)) {
			t.Errorf("the pages of %s do not name it", topic)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "commands", "bnpl_exit-codes.md"))
	if !bytes.Contains(md, []byte("143")) {
		t.Errorf("the exit-codes page lacks the codes:\n%s", md)
	}
}
