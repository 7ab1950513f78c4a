package output

import (
	"slices"
	"testing"
)

func TestAlignColumns(t *testing.T) {
	bold := "\x1b[1mID\x1b[0m"
	got := alignColumns([][]string{
		{bold, "STATUS"},
		{"pay_1", "AUTHORIZED"},
		{"pay_123456", "CLOSED", "extra"},
		{"é"},
	})
	want := []string{
		bold + "          STATUS      " + "       ",
		"pay_1       AUTHORIZED  " + "       ",
		"pay_123456  CLOSED      extra  ",
		"é           " + "            " + "       ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("alignColumns:\n got %q\nwant %q", got, want)
	}
	if got := alignColumns(nil); len(got) != 0 {
		t.Errorf("no rows: got %q", got)
	}
}
