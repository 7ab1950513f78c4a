// Command gendocs writes bnpl's command reference (Markdown, man pages) and,
// on request, its shell completion scripts, from the command tree itself.
// It is a program of its own, run by `go generate ./...` at the repository's
// root, so that the documentation renderers stay out of the bnpl binary.
//
//	go run ./internal/docgen/cmd/gendocs --out-dir docs
//	go run ./internal/docgen/cmd/gendocs --out-dir dist-extra --completions
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/bnpl-cli/bnpl/cmd"
	"github.com/bnpl-cli/bnpl/internal/docgen"
)

const usage = `Usage: gendocs --out-dir DIR [--completions]

Write the command reference of bnpl generated from the command tree:

  DIR/commands/*.md    Markdown, one page per command
  DIR/man/*.1          man pages
  DIR/completions/     bnpl.bash, bnpl.zsh, bnpl.fish, bnpl.ps1 (with --completions)

Files of earlier runs that no command produces any more are removed. The output
does not depend on the machine, the environment or the date, so the committed
reference can be checked for staleness: regenerate it with go generate ./...

Flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run returns the exit code: 0, 1 when writing failed, 2 for a usage error.
func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("gendocs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("out-dir", "", "directory to write commands/, man/ (and completions/) into")
	completions := fs.Bool("completions", false, "also write shell completion scripts into DIR/completions")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gendocs: unexpected argument %q; the only inputs are --out-dir and --completions\n", fs.Arg(0))
		return 2
	}
	if *outDir == "" {
		fmt.Fprintln(stderr, "gendocs: --out-dir is required, e.g. --out-dir docs")
		return 2
	}
	if err := docgen.Generate(cmd.NewRootCmd, *outDir, *completions); err != nil {
		fmt.Fprintf(stderr, "gendocs: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "wrote the command reference to %s\n", *outDir)
	return 0
}
