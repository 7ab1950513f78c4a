package output

import (
	"errors"
	"testing"
)

func TestPagerFrom(t *testing.T) {
	haveLess := func(string) (string, error) { return "/usr/bin/less", nil }
	noLess := func(string) (string, error) { return "", errors.New("not found") }
	for _, c := range []struct {
		env  map[string]string
		look func(string) (string, error)
		want string
	}{
		{map[string]string{"TERM": "xterm"}, haveLess, "less -FRX"},
		{map[string]string{"TERM": "xterm"}, noLess, ""},
		{map[string]string{"TERM": "dumb"}, haveLess, ""},
		{map[string]string{}, haveLess, ""},
		{map[string]string{"TERM": "dumb", "PAGER": "more"}, haveLess, "more"},
		{map[string]string{"TERM": "xterm", "PAGER": "more", "BNPL_PAGER": "most -s"}, haveLess, "most -s"},
		{map[string]string{"TERM": "xterm", "PAGER": "more", "BNPL_PAGER": ""}, haveLess, ""},
		{map[string]string{"TERM": "xterm", "PAGER": "cat"}, haveLess, ""},
		{map[string]string{"TERM": "xterm", "PAGER": ""}, haveLess, ""},
	} {
		lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
		if got := pagerFrom(lookup, c.look); got != c.want {
			t.Errorf("%v: pager %q, want %q", c.env, got, c.want)
		}
	}
}

// Piped output never starts a pager, whatever is set.
func TestNoPagerWhenPiped(t *testing.T) {
	ios, _, out, _ := Test()
	ios.SetPager("false")
	if err := ios.StartPager(); err != nil || ios.IsPaging() {
		t.Fatalf("a pager started off a terminal: %v", err)
	}
	if ios.Out != out {
		t.Fatal("stdout was replaced")
	}
}
