package output

import "testing"

// An empty list in every format: a valid empty document for a script,
// nothing for a person (the command says so on stderr).
func TestEmptyLists(t *testing.T) {
	tests := []struct {
		format string
		tty    bool
		opts   Options
		want   string
	}{
		{format: "json", want: "[]\n"},
		{format: "json", tty: true, want: "[]\n"},
		{format: "jsonl", want: ""},
		{format: "tsv", want: "ID\tSTATUS\tAMOUNT\tCURRENCY\tREFERENCE\tCAPTURES\tDESCRIPTION\tCREATED\n"},
		{format: "tsv", opts: Options{NoHeader: true}, want: ""},
		{format: "csv", opts: Options{Columns: []string{"id", "buyer.email"}}, want: "ID,BUYER.EMAIL\n"},
		// On a terminal too an empty table prints nothing: the command says
		// on stderr that nothing was found, and an empty header under that
		// would only repeat it.
		{format: "table", tty: true, want: ""},
		{format: "table", tty: true, opts: Options{NoHeader: true}, want: ""},
		{format: "table", tty: true, opts: Options{Columns: []string{"id", "buyer.email"}}, want: ""},
		{format: "table", want: ""},
		// Per record, a list as a stream: no records, no output.
		{format: "jsonl", opts: Options{JQ: "length"}, want: ""},
		{format: "", opts: Options{JQ: "length"}, want: "0\n"},
		{format: "", opts: Options{Template: `{{len .}} payments`}, want: "0 payments\n"},
	}
	for _, tt := range tests {
		o := tt.opts
		o.Format = tt.format
		for _, mode := range []string{"list", "stream"} {
			tp := newTestPrinter(t, tt.tty, 0, o)
			var err error
			if mode == "list" {
				err = tp.p.List(paymentColumns(), nil)
			} else {
				err = tp.p.Stream(paymentColumns()).Close()
			}
			if err != nil {
				t.Fatalf("%s %+v: %v", mode, o, err)
			}
			want := tt.want
			if got := tp.out.String(); got != want {
				t.Errorf("%s %+v tty=%v: got %q, want %q", mode, o, tt.tty, got, want)
			}
		}
	}
}
