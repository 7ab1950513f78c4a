// Package house checks the house rules of the tree that a test can hold:
// the size of functions and files, and what every start of bnpl links.
package house

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The house rules a reader can hold: in cmd/ and internal/, no function
// (or function literal) is longer than maxFuncLines, and no file of code
// longer than maxFileLines. Tests are not counted: a table of cases is
// long by nature.
const (
	maxFuncLines = 80
	maxFileLines = 800
)

func TestFunctionsAndFilesAReaderCanHold(t *testing.T) {
	fset := token.NewFileSet()
	for _, root := range []string{filepath.Join("..", "..", "cmd"), filepath.Join("..", "..", "internal")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if n := bytes.Count(src, []byte("\n")); n > maxFileLines {
				t.Errorf("%s: %d lines, more than %d: split it along its seams", path, n, maxFileLines)
			}
			f, err := parser.ParseFile(fset, path, src, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				name, body := funcBody(n)
				if body == nil {
					return true
				}
				start, end := fset.Position(n.Pos()), fset.Position(body.Rbrace)
				if lines := end.Line - start.Line + 1; lines > maxFuncLines {
					t.Errorf("%s:%d: %s is %d lines, more than %d", path, start.Line, name, lines, maxFuncLines)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// funcBody is the name and body of a function declaration or literal.
func funcBody(n ast.Node) (string, *ast.BlockStmt) {
	switch fn := n.(type) {
	case *ast.FuncDecl:
		return fn.Name.Name, fn.Body
	case *ast.FuncLit:
		return "a function literal", fn.Body
	}
	return "", nil
}
