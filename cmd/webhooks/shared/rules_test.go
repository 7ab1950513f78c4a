package shared

import (
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
)

const hookSecret = "hook-secret-0123456789"

func TestHeaderFlags(t *testing.T) {
	cases := []struct {
		name   string
		h      HeaderFlags
		update bool
		want   string
	}{
		{"none on add", HeaderFlags{}, false, ""},
		{"stdin", HeaderFlags{Title: "X-Hook", ValueStdin: true}, false, ""},
		{"env", HeaderFlags{Title: "X-Hook", ValueEnv: "HOOK"}, false, ""},
		{"title alone", HeaderFlags{Title: "X-Hook"}, false, "needs --header-value-stdin or --header-value-env"},
		{"value alone", HeaderFlags{ValueEnv: "HOOK"}, false, "needs --header-title"},
		{"both sources", HeaderFlags{Title: "X-Hook", ValueStdin: true, ValueEnv: "HOOK"}, false, "cannot be used together"},
		{"bad title", HeaderFlags{Title: "X Hook", ValueEnv: "HOOK"}, false, "not an HTTP token"},
		{"update needs a choice", HeaderFlags{}, true, "needs the header or --remove-header"},
		{"update remove", HeaderFlags{Remove: true}, true, ""},
		{"remove and header", HeaderFlags{Remove: true, Title: "X-Hook", ValueEnv: "HOOK"}, true, "cannot be combined"},
	}
	for _, c := range cases {
		err := c.h.Validate(c.update)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || cmdutil.ExitCode(err) != 2) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestHeaderValueSources(t *testing.T) {
	env := func(k string) string { return map[string]string{"HOOK": hookSecret}[k] }
	h := HeaderFlags{Title: "X-Hook", ValueStdin: true}
	got, err := h.Header(strings.NewReader(hookSecret+"\r\nnext line\n"), env)
	if err != nil || got.Value != hookSecret || got.Title != "X-Hook" {
		t.Errorf("stdin: %+v, %v", got, err)
	}
	if _, err := h.Header(strings.NewReader(""), env); err == nil || !strings.Contains(err.Error(), "no header value on stdin") {
		t.Errorf("empty stdin: %v", err)
	}
	h = HeaderFlags{Title: "X-Hook", ValueEnv: "HOOK"}
	if got, err := h.Header(nil, env); err != nil || got.Value != hookSecret {
		t.Errorf("env: %+v, %v", got, err)
	}
	h.ValueEnv = "UNSET"
	if _, err := h.Header(nil, env); err == nil || !strings.Contains(err.Error(), "UNSET is empty or unset") {
		t.Errorf("unset env: %v", err)
	}
	h = HeaderFlags{Title: "X-Hook", ValueStdin: true}
	_, err = h.Header(strings.NewReader(strings.Repeat("v", 1025)+"\n"), env)
	if err == nil || strings.Contains(err.Error(), "vvvv") {
		t.Errorf("long value: %v", err)
	}
	if got, err := (&HeaderFlags{}).Header(nil, env); got != nil || err != nil {
		t.Errorf("no header: %+v, %v", got, err)
	}
}

func TestIsSandbox(t *testing.T) {
	for base, want := range map[string]bool{
		"http://127.0.0.1:8700":  true,
		"http://localhost:8700":  true,
		"http://[::1]:8700":      true,
		"https://api.tabby.ai":   false,
		"https://10.0.0.1:8700/": false,
	} {
		if got := IsSandbox(&config.Target{BaseURL: base}); got != want {
			t.Errorf("%s: %t", base, got)
		}
	}
	if !IsSandbox(&config.Target{Embedded: true, BaseURL: "http://127.0.0.1:8700"}) {
		t.Error("embedded")
	}
}
