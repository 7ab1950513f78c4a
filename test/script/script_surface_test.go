package script

import (
	"encoding/csv"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// csvcheck FILE N reads FILE whole with encoding/csv, as any CSV reader
// would, and fails unless it is one document whose every row has N fields.
func csvCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: csvcheck FILE FIELDS")
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("csvcheck: %q is not a number", args[1])
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if strings.Contains(string(b), "\n\n") {
		ts.Fatalf("csvcheck: %s has a blank line", args[0])
	}
	r := csv.NewReader(strings.NewReader(string(b)))
	r.FieldsPerRecord = want
	rows, err := r.ReadAll()
	if err != nil {
		ts.Fatalf("csvcheck: %s is not one CSV document of %d fields a row: %v", args[0], want, err)
	}
	if len(rows) == 0 {
		ts.Fatalf("csvcheck: %s has no rows", args[0])
	}
}
