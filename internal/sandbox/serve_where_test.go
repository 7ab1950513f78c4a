package sandbox

import (
	"net"
	"testing"
)

// The URLs serve shows and writes to its ready file: the public URL when
// given; on a wildcard address (a container), the first allowed host
// name, else loopback; the address itself otherwise.
func TestListeningURLs(t *testing.T) {
	wildcard := &net.TCPAddr{IP: net.IPv4zero, Port: 8700}
	cases := []struct {
		name   string
		public string
		addr   net.Addr
		allow  []string
		url    string
		local  string
		links  string // the base of the links the sandbox writes; "" follows each request's Host
	}{
		{"public URL", "http://bnpl-sandbox:8700", wildcard, []string{"other"}, "http://bnpl-sandbox:8700", "http://127.0.0.1:8700", "http://bnpl-sandbox:8700"},
		{"wildcard with a service name", "", wildcard, []string{"BNPL-Sandbox", "svc-b"}, "http://bnpl-sandbox:8700", "http://127.0.0.1:8700", ""},
		{"wildcard alone", "", wildcard, nil, "http://127.0.0.1:8700", "http://127.0.0.1:8700", ""},
		{"loopback", "", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 41234}, []string{"bnpl-sandbox"}, "http://127.0.0.1:41234", "http://127.0.0.1:41234", "http://127.0.0.1:41234"},
	}
	for _, tc := range cases {
		ls := &listening{public: map[string]string{}, where: Listening{URLs: map[string]string{}, LocalURLs: map[string]string{}, Addrs: map[string]string{}}}
		if tc.public != "" {
			ls.public["ae"] = tc.public
		}
		ls.note("ae", tc.addr, tc.allow)
		if got := ls.where.URLs["ae"]; got != tc.url {
			t.Errorf("%s: URL %q, want %q", tc.name, got, tc.url)
		}
		if got := ls.where.LocalURLs["ae"]; got != tc.local {
			t.Errorf("%s: local URL %q, want %q", tc.name, got, tc.local)
		}
		if got := ls.public["ae"]; got != tc.links {
			t.Errorf("%s: links %q, want %q", tc.name, got, tc.links)
		}
		if got := ls.where.Addrs["ae"]; got != tc.addr.String() {
			t.Errorf("%s: addr %q, want %q", tc.name, got, tc.addr)
		}
	}
}

func TestWildcardAsAsked(t *testing.T) {
	dual := &net.TCPAddr{IP: net.IPv6unspecified, Port: 8700}
	for asked, want := range map[string]string{"0.0.0.0:8700": "0.0.0.0:8700", ":8700": "0.0.0.0:8700", "[::]:8700": "[::]:8700"} {
		if got := wildcardAsAsked(dual, asked).String(); got != want {
			t.Errorf("asked %s: %s, want %s", asked, got, want)
		}
	}
	loop := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 41234}
	if got := wildcardAsAsked(loop, "127.0.0.1:0").String(); got != "127.0.0.1:41234" {
		t.Errorf("loopback: %s", got)
	}
}
