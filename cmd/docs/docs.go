// Package docs is the hidden `bnpl docs` command, which writes the command
// reference (Markdown and man pages) and the shell completion scripts from
// the command tree itself, so that they cannot drift from the code; and the
// set-up of the `completion` command.
package docs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// BuildRoot makes a whole command tree over a factory: cmd.NewRootCmd,
// passed in because cmd imports this package.
type BuildRoot func(*cmdutil.Factory) *cobra.Command

// NewCmd returns `bnpl docs`.
func NewCmd(f *cmdutil.Factory, build BuildRoot) *cobra.Command {
	var outDir string
	var completions bool
	cmd := &cobra.Command{
		Use:    "docs",
		Short:  "Write the command reference (Markdown, man pages) and shell completions",
		Hidden: true,
		Long: `Write the command reference generated from the command tree:

  DIR/commands/*.md    Markdown, one page per command
  DIR/man/*.1          man pages
  DIR/completions/     bnpl.bash, bnpl.zsh, bnpl.fish, bnpl.ps1 (with --completions)

Files of earlier runs that no command produces any more are removed. The output
does not depend on the machine, the environment or the date, so the committed
reference can be checked for staleness: regenerate it with go generate ./...`,
		Example: `  bnpl docs --out-dir docs
  bnpl docs --out-dir dist-extra --completions`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if outDir == "" {
				return cmdutil.Usagef("--out-dir is required")
			}
			if err := Generate(build, outDir, completions); err != nil {
				return err
			}
			f.Noticef("wrote the command reference to %s", outDir)
			return nil
		},
	}
	cmd.Flags().StringVar(&outDir, "out-dir", "", "directory to write commands/, man/ (and completions/) into")
	cmd.Flags().BoolVar(&completions, "completions", false, "also write shell completion scripts into DIR/completions")
	return cmd
}

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
	return nil
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

// InitCompletion adds cobra's `completion` command now rather than at
// Execute, so that it carries examples and appears in the generated
// reference, and describes where each shell's script goes.
func InitCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	name := root.Name()
	examples := map[string]string{
		"bash": fmt.Sprintf(`  source <(%[1]s completion bash)
  %[1]s completion bash > ~/.local/share/bash-completion/completions/%[1]s`, name),
		"zsh": fmt.Sprintf(`  %[1]s completion zsh > "${fpath[1]}/_%[1]s"
  source <(%[1]s completion zsh)`, name),
		"fish": fmt.Sprintf(`  %[1]s completion fish | source
  %[1]s completion fish > ~/.config/fish/completions/%[1]s.fish`, name),
		"powershell": fmt.Sprintf(`  %[1]s completion powershell | Out-String | Invoke-Expression
  %[1]s completion powershell >> $PROFILE`, name),
	}
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Example = fmt.Sprintf(`  %[1]s completion bash > ~/.local/share/bash-completion/completions/%[1]s
  %[1]s completion zsh > "${fpath[1]}/_%[1]s"`, name)
		c.Long = strings.TrimSpace(c.Long) + `

Besides commands and flags, the scripts complete profile names for --profile, and
payment ids that recent output of ` + name + ` payments get and list showed.`
		for _, shell := range c.Commands() {
			if ex, ok := examples[shell.Name()]; ok {
				shell.Example = ex
			}
		}
	}
}
