// Package docgen writes the command reference (Markdown and man pages) and
// the shell completion scripts from the command tree itself, so that they
// cannot drift from the code. It runs as a program of its own
// (internal/docgen/cmd/gendocs, through go generate at the repository's
// root), so that cobra/doc and the renderers it pulls in (blackfriday,
// md2man) are not linked into bnpl and cost nothing at its start-up.
package docgen

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// BuildRoot makes a whole command tree over a factory: cmd.NewRootCmd.
type BuildRoot func(*cmdutil.Factory) *cobra.Command

// Generate writes the reference of a fresh command tree into dir. The tree
// is built over a factory with an empty environment and non-terminal
// streams, so that nothing of this machine leaks into the pages.
func Generate(build BuildRoot, dir string, completions bool) error {
	root := stableRoot(build)
	if err := writeMarkdown(root, filepath.Join(dir, "commands")); err != nil {
		return err
	}
	if err := writeMan(root, filepath.Join(dir, "man")); err != nil {
		return err
	}
	if completions {
		return writeCompletions(root, filepath.Join(dir, "completions"))
	}
	return nil
}

func stableRoot(build BuildRoot) *cobra.Command {
	f := cmdutil.New("dev", "none", "unknown")
	f.IO, _, _, _ = output.Test()
	f.Getenv = func(string) string { return "" }
	root := build(f)
	root.DisableAutoGenTag = true
	return root
}

// fresh empties the generated files (those named like pattern) of dir, so
// that a removed command leaves no page behind.
func fresh(dir, pattern string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return err
	}
	for _, p := range old {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}

func writeMarkdown(root *cobra.Command, dir string) error {
	if err := fresh(dir, root.Name()+"*.md"); err != nil {
		return err
	}
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		return fmt.Errorf("markdown reference: %w", err)
	}
	// The tree leaves out help topics (bnpl help exit-codes, ...): a page
	// each, named like a command's.
	for _, t := range helpTopics(root) {
		if err := writeFile(filepath.Join(dir, strings.ReplaceAll(t.CommandPath(), " ", "_")+".md"), func(w io.Writer) error {
			return doc.GenMarkdown(t, w)
		}); err != nil {
			return fmt.Errorf("markdown reference: %w", err)
		}
	}
	return nil
}

// helpTopics are the root's additional help topics: commands that only
// carry a text, which the generators' tree walks skip.
func helpTopics(root *cobra.Command) []*cobra.Command {
	var topics []*cobra.Command
	for _, c := range root.Commands() {
		if c.IsAdditionalHelpTopicCommand() {
			topics = append(topics, c)
		}
	}
	return topics
}

func writeFile(path string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// manDate is a fixed date given to the generator, which would otherwise
// stamp today's; it is then blanked out of each page, since a date that
// does not change with the content would only mislead.
var manDate = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

func writeMan(root *cobra.Command, dir string) error {
	if err := fresh(dir, root.Name()+"*.1"); err != nil {
		return err
	}
	header := &doc.GenManHeader{Section: "1", Date: &manDate, Source: "bnpl", Manual: "bnpl manual"}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	for _, t := range helpTopics(root) {
		if err := writeFile(filepath.Join(dir, strings.ReplaceAll(t.CommandPath(), " ", "-")+".1"), func(w io.Writer) error {
			h := *header
			return doc.GenMan(t, &h, w)
		}); err != nil {
			return fmt.Errorf("man pages: %w", err)
		}
	}
	pages, err := filepath.Glob(filepath.Join(dir, root.Name()+"*.1"))
	if err != nil {
		return err
	}
	stamp := []byte(`"` + manDate.Format("Jan 2006") + `"`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b = bytes.Replace(b, stamp, []byte(`""`), 1)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeCompletions(root *cobra.Command, dir string) error {
	if err := fresh(dir, root.Name()+".*"); err != nil {
		return err
	}
	name := root.Name()
	for _, c := range []struct {
		file string
		gen  func(*bytes.Buffer) error
	}{
		{name + ".bash", func(b *bytes.Buffer) error { return root.GenBashCompletionV2(b, true) }},
		{name + ".zsh", func(b *bytes.Buffer) error { return root.GenZshCompletion(b) }},
		{name + ".fish", func(b *bytes.Buffer) error { return root.GenFishCompletion(b, true) }},
		{name + ".ps1", func(b *bytes.Buffer) error { return root.GenPowerShellCompletionWithDesc(b) }},
	} {
		var b bytes.Buffer
		if err := c.gen(&b); err != nil {
			return fmt.Errorf("completion %s: %w", c.file, err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.file), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
