package listen

import (
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// TestCheckForward: at start, --forward-to is judged by what its spelling
// can tell: a loopback address is this machine; localhost is allowed and
// judged at each forward by the address it resolves to; any other name,
// "127.0.0.1." included, is a name like any other, so plain http to it is
// refused without --insecure-forward.
func TestCheckForward(t *testing.T) {
	for _, c := range []struct {
		url      string
		insecure bool
		refused  string // part of the refusal; "" allowed
		note     string // part of the note at start; "" none
	}{
		{"http://127.0.0.1:3000/h", false, "", ""},
		{"http://127.9.9.9/h", false, "", ""},
		{"http://[::1]:3000/h", false, "", ""},
		{"http://[::ffff:127.0.0.1]/h", false, "", ""},
		{"http://localhost:3000/h", false, "", ""},
		{"http://LOCALHOST./h", false, "", ""},
		{"http://127.0.0.1.:3000/h", false, "plain http to 127.0.0.1.", ""},
		{"https://hooks.shop-example.com/h", false, "", "forwarding to hooks.shop-example.com, looked up at each forward"},
		{"https://10.0.0.7/h", false, "", "forwarding off this machine to 10.0.0.7"},
		{"http://hooks.shop-example.com/h", false, "plain http to hooks.shop-example.com", ""},
		{"http://192.168.1.5:3000/h", false, "plain http to 192.168.1.5", ""},
		{"http://localhost.shop-example.com/h", false, "plain http", ""},
		{"http://127.0.0.1.nip.io/h", false, "plain http", ""},
		{"http://hooks.shop-example.com/h", true, "", "warning: notifications go over plain http"},
		{"localhost:3000", false, "invalid --forward-to", ""},
		{"http:///h", false, "invalid --forward-to", ""},
	} {
		target, err := checkForward(c.url, c.insecure)
		if c.refused != "" {
			if err == nil || !strings.Contains(err.Error(), c.refused) || cmdutil.ExitCode(err) != 2 {
				t.Errorf("%s: got %v, want a usage error saying %q", c.url, err, c.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if (c.note == "") != (target.note == "") || !strings.Contains(target.note, c.note) {
			t.Errorf("%s: note %q, want %q", c.url, target.note, c.note)
		}
	}
}
