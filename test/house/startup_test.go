package house

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// bnpl links no library whose package initialisation is costly and that a
// few lines of its own do as well: Go runs every linked package's init at
// every start, whatever the command. tablewriter built a 660 KB width cache
// (160 page faults) before `bnpl version` printed a line; the table
// printer aligns its columns itself (internal/output/align.go). Likewise
// klauspost/compress, linked for its zstd decoder, whose snapref package
// built a CRC-32C table at every start; recordings decode zstd with
// internal/zstd. Nor does it link cobra/doc and the renderers it pulls in:
// the reference generator is a program of its own.
func TestStartLinksNoCostlyInit(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list bnpl's packages: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", "github.com/bnpl-cli/bnpl").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 || !slices.Contains(deps, "github.com/spf13/cobra") {
		t.Fatalf("go list gave an implausible package list: %d packages", len(deps))
	}
	for _, p := range deps {
		for banned, instead := range map[string]string{
			"github.com/olekukonko/tablewriter":        "align columns with internal/output's alignColumns",
			"github.com/mattn/go-runewidth":            "measure with internal/output's display widths",
			"github.com/schollz/progressbar":           "draw progress with internal/bulk's bar",
			"github.com/klauspost/compress":            "decode zstd with internal/zstd (klauspost's snapref built a CRC table, 1.28 M instructions)",
			"github.com/spf13/cobra/doc":               "the reference generator belongs in internal/docgen/cmd/gendocs",
			"github.com/russross/blackfriday":          "the reference generator belongs in internal/docgen/cmd/gendocs",
			"github.com/cpuguy83/go-md2man":            "the reference generator belongs in internal/docgen/cmd/gendocs",
			"github.com/bnpl-cli/bnpl/internal/docgen": "the reference generator belongs in internal/docgen/cmd/gendocs",
		} {
			if p == banned || strings.HasPrefix(p, banned+"/") {
				t.Errorf("bnpl links %s, whose init every start pays for; %s", p, instead)
			}
		}
	}
}
