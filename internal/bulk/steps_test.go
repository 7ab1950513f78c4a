package bulk

import (
	"bytes"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// stepOf is each non-test file's step on a row's way, in order (doc.go
// tells the way). The driver and the shared files are 0: anyone may call
// them, and they may call anyone.
var stepOf = map[string]int{
	// the driver: it calls the steps in order
	"batch.go": 0, "run.go": 0, "schedule.go": 0, "earlier.go": 0,
	"journal.go": 0, "ledgerlost.go": 0, "ledgermark.go": 0,
	// shared: types, errors, the ledger's rows, a payment's rules
	"bulk.go": 0, "doc.go": 0, "errors.go": 0, "records.go": 0, "payment.go": 0,
	"hashtable.go": 0, "private_unix.go": 0, "private_windows.go": 0,
	// read
	"read.go": 1, "textin.go": 1, "encoding.go": 1, "separator.go": 1,
	"csvheader.go": 1, "validate.go": 1,
	// identify
	"identity.go": 2, "sketch.go": 2,
	// plan
	"plan.go": 3, "plan_check.go": 3,
	// claim
	"claim.go": 4,
	// send
	"send.go": 5, "send_row.go": 5,
	// settle
	"settle.go": 6, "settle_answer.go": 6, "settle_made.go": 6,
	// report
	"report.go": 7, "summary.go": 7, "progress.go": 7, "bar.go": 7,
}

// backCalls are the calls allowed to go back to an earlier step, each
// with why.
var backCalls = map[string]string{
	// An unknown row whose move the payment does not show is sent again,
	// with its reference id, before the payment is given back.
	"settle.go:settleUnresolved -> send.go:sendMove": "re-send of an absent move",
	// The dry run names each row's reference id as a run derives it.
	"plan_check.go:referenceOf -> identity.go:derivedReference": "the dry run's derived reference ids",
	"plan_check.go:referenceOf -> identity.go:rowContent":       "the dry run's derived reference ids",
}

// TestStepsCallOnlyLaterSteps holds the package to a row's way: a
// function of one step calls functions of its own step or of later ones
// (and the driver's and shared files'), never one of an earlier step.
func TestStepsCallOnlyLaterSteps(t *testing.T) {
	fset, files := parsePackage(t)
	info := typeCheck(t, fset, files)
	var back []string
	for _, f := range files {
		caller := filepath.Base(fset.Position(f.Pos()).Filename)
		from, ok := stepOf[caller]
		if !ok {
			t.Errorf("%s has no step: add it to stepOf (and to doc.go)", caller)
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || from == 0 {
				continue
			}
			for _, callee := range calleesOf(fd, info) {
				file := filepath.Base(fset.Position(callee.Pos()).Filename)
				if to := stepOf[file]; to == 0 || to >= from {
					continue
				}
				edge := caller + ":" + fd.Name.Name + " -> " + file + ":" + callee.Name()
				if _, ok := backCalls[edge]; !ok {
					back = append(back, edge)
				}
			}
		}
	}
	sort.Strings(back)
	for _, e := range back {
		t.Errorf("a step calls an earlier one: %s", e)
	}
}

// TestStepMapIsTrue fails on a file of the map that is gone, so the map
// and doc.go stay the package's files.
func TestStepMapIsTrue(t *testing.T) {
	for f := range stepOf {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("stepOf names %s: %v", f, err)
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for f, step := range stepOf {
		if step != 0 && !bytes.Contains(doc, []byte(f)) {
			t.Errorf("doc.go does not name %s", f)
		}
	}
}

// calleesOf are the functions and methods of this package fd calls.
func calleesOf(fd *ast.FuncDecl, info *types.Info) []*types.Func {
	var out []*types.Func
	ast.Inspect(fd, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		var id *ast.Ident
		switch e := ast.Unparen(c.Fun).(type) {
		case *ast.Ident:
			id = e
		case *ast.SelectorExpr:
			id = e.Sel
		}
		if id == nil {
			return true
		}
		if fn, ok := info.Uses[id].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Name() == "bulk" && fn.Pkg().Path() == thisPackage {
			out = append(out, fn)
		}
		return true
	})
	return out
}

const thisPackage = "github.com/bnpl-cli/bnpl/internal/bulk"

func parsePackage(t *testing.T) (*token.FileSet, []*ast.File) {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") || strings.HasSuffix(n, "_windows.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// typeCheck type-checks the package against its dependencies' export
// data, which `go list -export` names (built already for this test).
func typeCheck(t *testing.T, fset *token.FileSet, files []*ast.File) *types.Info {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	export := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok && file != "" {
			export[path] = file
		}
	}
	lookup := func(path string) (io.ReadCloser, error) { return os.Open(export[path]) }
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	if _, err := conf.Check(thisPackage, fset, files, info); err != nil {
		t.Fatal(err)
	}
	return info
}
