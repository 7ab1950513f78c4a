package webhook

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/webhook/webhooktest"
)

var testResolver = webhooktest.Resolver{
	"hooks.shop.com":   {"93.184.215.14"},
	"shop.co.uk":       {"2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
	"shop.de":          {"93.184.215.15"},
	"private.shop.com": {"10.0.0.7", "127.0.0.1"},
	"mixed.shop.com":   {"10.0.0.7", "93.184.215.16"},
	// Names that answer special-purpose addresses only.
	"metadata.shop.com":         {"100.100.100.200"},
	"zeros.shop.com":            {"0.1.2.3"},
	"bench.shop.com":            {"198.19.255.255"},
	"classe.shop.com":           {"240.0.0.1", "255.255.255.255"},
	"nat64.shop.com":            {"64:ff9b::a9fe:a9fe"},
	"sixtofour.shop.com":        {"2002:7f00:1::1"},
	"compat.shop.com":           {"::a9fe:a9fe"},
	"mapped.shop.com":           {"::ffff:169.254.169.254"},
	"sixtofour-public.shop.com": {"2002:5db8:d70e::1"},
}

func TestURLRules(t *testing.T) {
	cases := []struct {
		in      string
		https   bool
		local   bool
		want    string // normalised; "" means refused
		problem string // part of the refusal
	}{
		// Normalisation.
		{in: "https://hooks.shop.com/bnpl", want: "https://hooks.shop.com/bnpl"},
		{in: "HTTPS://Hooks.Shop.COM/Bnpl/", want: "https://hooks.shop.com/Bnpl"},
		{in: "https://hooks.shop.com:443/x", want: "https://hooks.shop.com/x"},
		{in: "http://hooks.shop.com:80/x", want: "http://hooks.shop.com/x"},
		{in: "http://hooks.shop.com:443/x", want: "http://hooks.shop.com:443/x"},
		{in: "https://hooks.shop.com:8443/x/", want: "https://hooks.shop.com:8443/x"},
		{in: "https://hooks.shop.com/", want: "https://hooks.shop.com"},
		{in: "https://hooks.shop.com", want: "https://hooks.shop.com"},
		{in: "https://hooks.shop.com//", want: "https://hooks.shop.com"},
		{in: "https://hooks.shop.com/a/?x=1", want: "https://hooks.shop.com/a?x=1"},
		{in: "https://hooks.shop.com:/a", want: "https://hooks.shop.com/a"},
		{in: "https://hooks.shop.com/a%2Fb/", want: "https://hooks.shop.com/a%2Fb"},
		{in: "https://shop.co.uk/h", want: "https://shop.co.uk/h"},
		{in: "https://shop.de/h", want: "https://shop.de/h"},
		{in: "https://mixed.shop.com/h", want: "https://mixed.shop.com/h"},
		// Syntax.
		{in: "", problem: "empty"},
		{in: " https://hooks.shop.com", problem: "spaces"},
		{in: "/hooks", problem: "not absolute"},
		{in: "hooks.shop.com/x", problem: "not absolute"},
		{in: "ftp://hooks.shop.com/x", problem: `scheme "ftp"`},
		{in: "https:hooks.shop.com", problem: "no host"},
		{in: "https:///x", problem: "no host"},
		{in: "https://user:pw@hooks.shop.com/x", problem: "credentials"},
		{in: "https://hooks.shop.com/x#frag", problem: "fragment"},
		{in: "https://hooks.shop.com/x#", problem: "fragment"},
		{in: "https://hooks.shop.com:0/x", problem: "port"},
		{in: "https://hooks.shop.com:70000/x", problem: "port"},
		{in: "https://hooks.shop.com:http/x", problem: "cannot be parsed"},
		// Public hosts only.
		{in: "http://localhost:8080/x", problem: "localhost"},
		{in: "http://LOCALHOST/x", problem: "localhost"},
		{in: "http://app.localhost/x", problem: ".localhost"},
		{in: "http://printer.local/x", problem: ".local"},
		{in: "http://svc.internal/x", problem: ".internal"},
		{in: "http://a.invalid/x", problem: ".invalid"},
		{in: "http://shop.test/x", problem: ".test"},
		{in: "http://shop.example/x", problem: ".example"},
		{in: "http://shop.example./x", problem: ".example"},
		{in: "http://127.0.0.1/x", problem: "raw IP"},
		{in: "http://93.184.215.14/x", problem: "raw IP"},
		{in: "http://[::1]:8080/x", problem: "raw IP"},
		{in: "http://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/x", problem: "raw IP"},
		{in: "http://[fe80::1%25eth0]/x", problem: "raw IP"},
		{in: "http://127.1/x", problem: "short or hex"},
		{in: "http://0x7f.1/x", problem: "short or hex"},
		{in: "http://intranet/x", problem: "not a public host name"},
		{in: "http://a..shop.com/x", problem: "not a public host name"},
		{in: "https://nowhere.shop.com/x", problem: "does not resolve"},
		{in: "https://private.shop.com/x", problem: "never receive webhooks (10.0.0.7 is in 10.0.0.0/8 (Private-Use, RFC 1918)"},
		{in: "https://metadata.shop.com/x", problem: "100.64.0.0/10 (Shared Address Space, RFC 6598)"},
		{in: "https://zeros.shop.com/x", problem: `0.0.0.0/8 ("This network"`},
		{in: "https://bench.shop.com/x", problem: "198.18.0.0/15 (Benchmarking"},
		{in: "https://classe.shop.com/x", problem: "240.0.0.0/4 (Reserved"},
		{in: "https://nat64.shop.com/x", problem: "64:ff9b::/96 (IPv4-IPv6 Translation, RFC 6052)"},
		{in: "https://sixtofour.shop.com/x", problem: "6to4 form of 127.0.0.1"},
		{in: "https://compat.shop.com/x", problem: "::/96 (IPv4-compatible"},
		{in: "https://mapped.shop.com/x", problem: "169.254.0.0/16 (Link Local"},
		{in: "https://sixtofour-public.shop.com/x", want: "https://sixtofour-public.shop.com/x"},
		{in: "http://100.100.100.200/x", problem: "raw IP address, and 100.100.100.200 is in 100.64.0.0/10"},
		{in: "http://[64:ff9b::a9fe:a9fe]/x", problem: "raw IP address, and 64:ff9b::a9fe:a9fe is in 64:ff9b::/96"},
		// Payment webhooks need https.
		{in: "http://hooks.shop.com/x", https: true, problem: "https"},
		{in: "https://hooks.shop.com/x", https: true, want: "https://hooks.shop.com/x"},
		// AllowLocal skips the host rules, not the syntax ones.
		{in: "http://127.0.0.1:8787/", local: true, want: "http://127.0.0.1:8787"},
		{in: "http://LocalHost:80/h/", local: true, want: "http://localhost/h"},
		{in: "http://[::1]:8787/h", local: true, want: "http://[::1]:8787/h"},
		{in: "http://[::1]:80/h", local: true, want: "http://[::1]/h"},
		{in: "http://u:p@127.0.0.1/x", local: true, problem: "credentials"},
	}
	for _, c := range cases {
		rules := URLRules{RequireHTTPS: c.https, AllowLocal: c.local, Resolver: testResolver}
		got, err := rules.Check(context.Background(), c.in)
		if c.want != "" {
			if err != nil || got != c.want {
				t.Errorf("%q: got %q, %v; want %q", c.in, got, err, c.want)
			}
			continue
		}
		var ue *URLError
		if !errors.As(err, &ue) {
			t.Errorf("%q: want a URLError containing %q, got %q, %v", c.in, c.problem, got, err)
			continue
		}
		if !strings.Contains(err.Error(), c.problem) {
			t.Errorf("%q: error %q does not say %q", c.in, err, c.problem)
		}
		if ue.ExitCode() != 2 || ue.Hint() == "" {
			t.Errorf("%q: exit %d, hint %q", c.in, ue.ExitCode(), ue.Hint())
		}
		if strings.Contains(err.Error(), "pw@") {
			t.Errorf("%q: credentials quoted in %q", c.in, err)
		}
	}
}

func TestNormalizeURLIsIdempotent(t *testing.T) {
	for _, in := range []string{"HTTP://A.Shop.COM:80//x//", "https://a.shop.com:443/", "https://a.shop.com/p/?q=/"} {
		once, err := NormalizeURL(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		twice, err := NormalizeURL(once)
		if err != nil || twice != once {
			t.Errorf("%q: %q then %q (%v)", in, once, twice, err)
		}
	}
	// NormalizeURL checks syntax only: the host may be local.
	if got, err := NormalizeURL("http://127.0.0.1:8787/"); err != nil || got != "http://127.0.0.1:8787" {
		t.Errorf("loopback: %q, %v", got, err)
	}
}

func TestResolverFailureIsNotNotFound(t *testing.T) {
	res := resolverFunc(func(ctx context.Context, host string) ([]net.IPAddr, error) {
		return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
	})
	_, err := URLRules{Resolver: res}.Check(context.Background(), "https://hooks.shop.com/x")
	if err == nil || !strings.Contains(err.Error(), "could not be resolved (server misbehaving)") {
		t.Errorf("got %v", err)
	}
}

type resolverFunc func(ctx context.Context, host string) ([]net.IPAddr, error)

func (f resolverFunc) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	return f(ctx, host)
}

func TestHeaderRules(t *testing.T) {
	good := []string{"X-Hook", "x_hook", "Authorization", "A!#$%&'*+-.^_`|~9", strings.Repeat("a", 128)}
	for _, title := range good {
		if err := CheckHeaderTitle(title); err != nil {
			t.Errorf("title %q: %v", title, err)
		}
	}
	bad := []string{"", "X Hook", "X-Hook:", "X\"Hook", "X(Hook)", "X/Hook", "X@Hook", "Ünï", "X\tHook", "X,Hook", strings.Repeat("a", 129)}
	for _, title := range bad {
		err := CheckHeaderTitle(title)
		var he *HeaderError
		if !errors.As(err, &he) || he.ExitCode() != 2 {
			t.Errorf("title %q: want a HeaderError, got %v", title, err)
		}
	}
	if err := CheckHeaderValue(strings.Repeat("v", 1024)); err != nil {
		t.Errorf("1024 chars: %v", err)
	}
	const secretValue = "s3cr3t-value-xyz"
	for _, v := range []string{"", strings.Repeat("v", 1025), secretValue + "\r\nX-Evil: 1", secretValue + "\x00"} {
		err := CheckHeaderValue(v)
		if err == nil {
			t.Errorf("value of %d chars accepted", len(v))
			continue
		}
		if strings.Contains(err.Error(), secretValue) || strings.Contains(err.(*HeaderError).Hint(), secretValue) {
			t.Errorf("the value is quoted: %v", err)
		}
	}
}

// A client's DNS is not the service's: with Advisory set, a name this
// machine cannot resolve is a warning, while the static rules still refuse.
func TestAdvisoryResolution(t *testing.T) {
	var warned []string
	rules := URLRules{Resolver: failingResolver{}, Advisory: func(p string) { warned = append(warned, p) }}
	got, err := rules.Check(context.Background(), "https://Hooks.Shop.COM:443/in/")
	if err != nil || got != "https://hooks.shop.com/in" {
		t.Fatalf("Check = %q, %v", got, err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "does not resolve") {
		t.Fatalf("warnings %q", warned)
	}
	for _, raw := range []string{"https://localhost/x", "https://10.0.0.1/x", "https://shop.internal/x"} {
		if _, err := rules.Check(context.Background(), raw); err == nil {
			t.Errorf("%s accepted", raw)
		}
	}
	if _, err := (URLRules{Resolver: failingResolver{}}).Check(context.Background(), "https://hooks.shop.com/in"); err == nil {
		t.Error("without Advisory an unresolvable name must be refused, as the service does")
	}
}

type failingResolver struct{}

func (failingResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// Without a resolver the rules judge without DNS: any well-formed public
// name passes, the reserved test TLDs stand for names that do not resolve,
// and hosts are judged in their IDNA form.
func TestHermeticRulesAndIDNA(t *testing.T) {
	cases := []struct{ in, want, problem string }{
		{in: "https://hooks.example.com/x", want: "https://hooks.example.com/x"},
		{in: "https://nowhere.shop.com/x", want: "https://nowhere.shop.com/x"},
		{in: "https://Bücher.DE/h", want: "https://xn--bcher-kva.de/h"},
		{in: "https://xn--bcher-kva.de/h", want: "https://xn--bcher-kva.de/h"},
		{in: "https://hooks.ｅｘａｍｐｌｅ.com/x", want: "https://hooks.example.com/x"},
		{in: "https://a.invalid/x", problem: "does not resolve"},
		{in: "https://shop.test/x", problem: "does not resolve"},
		{in: "https://app.localhost/x", problem: "does not resolve"},
		{in: "https://printer.local/x", problem: "does not resolve"},
		{in: "https://svc.internal/x", problem: "does not resolve"},
		{in: "https://ｌｏｃａｌｈｏｓｔ/x", problem: "localhost"},
		{in: "https://ⅼocalhost/x", problem: "localhost"},
		{in: "https://１２７.０.０.１/x", problem: "raw IP"},
		{in: "https://shop.ｔｅｓｔ/x", problem: "does not resolve"},
		{in: "https://pаypal.com/x", problem: "Latin and Cyrillic"},
		{in: "https://xn--zz.com/x", problem: "not a valid international domain name"},
		{in: "https://a\u200db.com/x", problem: "not a valid international domain name"},
		{in: "https://2130706433/x", problem: "not a public host name"},
		{in: "https://0177.0.0.1/x", problem: "IP address"},
		{in: "https://0x7f000001/x", problem: "not a public host name"},
	}
	for _, c := range cases {
		got, err := URLRules{RequireHTTPS: true}.Check(context.Background(), c.in)
		if c.want != "" {
			if err != nil || got != c.want {
				t.Errorf("%q: got %q, %v; want %q", c.in, got, err, c.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.problem) {
			t.Errorf("%q: got %q, %v; want a refusal saying %q", c.in, got, err, c.problem)
		}
	}
}
