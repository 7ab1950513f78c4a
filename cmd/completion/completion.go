// Package completion sets up cobra's `completion` command for bnpl. It
// lives apart from the generator of the command reference
// (internal/docgen), which is a program of its own, so that the binary
// links no documentation renderer.
package completion

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Init adds cobra's `completion` command now rather than at Execute, so
// that it carries examples and appears in the generated reference, and
// describes where each shell's script goes.
func Init(root *cobra.Command) {
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
