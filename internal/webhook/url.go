// Package webhook holds what both sides of a webhook share: the rules a
// webhook URL must meet and its normalised form, the check of the static
// header a notification carries, and the local receiver behind `bnpl
// listen`. The commands check registrations with it before sending; the
// sandbox applies the same rules when it stores them and reuses the
// receiver in its delivery tests.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/idna"

	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// exitUsage is the surface's "local validation failure: nothing was sent",
// repeated here so that this package does not import the command layer.
const exitUsage = 2

// Resolver looks host names up; *net.Resolver is one. Tests and the
// sandbox inject their own, so the rules never depend on the network of
// the machine that runs them.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// URLRules are the checks a webhook URL must pass before it is registered.
type URLRules struct {
	// RequireHTTPS refuses http:// (payment webhooks must be HTTPS; dispute
	// webhooks only recommend it).
	RequireHTTPS bool
	// AllowLocal skips the public-host rules (loopback, raw addresses,
	// reserved names, resolution), for a sandbox that delivers to local
	// receivers. The syntax rules and normalisation still apply.
	AllowLocal bool
	// Resolver, when set, checks that the host resolves to a public
	// address. Nil means no lookup at all: the rules are then those of the
	// interface document judged without DNS (hermetic), and names under
	// the reserved test TLDs stand for names that do not resolve.
	Resolver Resolver
	// Advisory, when set, receives resolution problems instead of the URL
	// being refused. A client's DNS is not the service's: a CI runner with
	// no outside DNS, or split-horizon DNS answering private addresses for a
	// public name, would otherwise refuse a URL the service accepts. The
	// static rules (localhost, raw addresses, reserved names) still refuse.
	Advisory func(problem string)
}

// URLError is a webhook URL refused by the rules. It never quotes
// credentials that were in the URL.
type URLError struct {
	URL     string // as given, userinfo removed
	Problem string
	Advice  string
}

func (e *URLError) Error() string {
	return fmt.Sprintf("invalid webhook URL %q: %s", e.URL, e.Problem)
}

// Hint tells what to do instead.
func (e *URLError) Hint() string { return e.Advice }

// ExitCode is 2: the URL was refused before anything was sent.
func (e *URLError) ExitCode() int { return exitUsage }

// reservedSuffixes are top-level names that never resolve publicly:
// special-use and documentation names (RFC 2606, RFC 6761, RFC 6762) and
// the .internal name reserved for private networks. Without DNS they are
// the documented way to rehearse "does not resolve".
var reservedSuffixes = []string{"localhost", "local", "internal", "invalid", "test", "example"}

// Check applies the rules to raw and returns the URL as the service
// stores it (see NormalizeURL).
func (r URLRules) Check(ctx context.Context, raw string) (string, error) {
	u, err := parseWebhookURL(raw)
	if err != nil {
		return "", err
	}
	shown := redactUserinfo(raw)
	if r.RequireHTTPS && u.Scheme != "https" {
		return "", &URLError{URL: shown, Problem: "payment webhooks must use https",
			Advice: "serve the endpoint over TLS and register its https:// address"}
	}
	if !r.AllowLocal {
		if err := checkStaticHost(u.Hostname()); err != nil {
			err.URL = shown
			return "", err
		}
		if r.Resolver == nil {
			return normalize(u), nil
		}
		if err := checkResolves(ctx, r.Resolver, u.Hostname()); err != nil {
			if r.Advisory == nil {
				err.URL = shown
				return "", err
			}
			r.Advisory(err.Problem + "; the service resolves the name itself and refuses it if it cannot")
		}
	}
	return normalize(u), nil
}

// NormalizeURL checks the syntax of a webhook URL and returns its stored
// form: scheme and host lower-cased, the default port (80 for http, 443
// for https) removed, and trailing slashes of the path removed. The path
// and query keep their case. It does not check that the host is public.
func NormalizeURL(raw string) (string, error) {
	u, err := parseWebhookURL(raw)
	if err != nil {
		return "", err
	}
	return normalize(u), nil
}

// parseWebhookURL applies the syntax rules, which hold whatever the host.
func parseWebhookURL(raw string) (*url.URL, error) {
	shown := redactUserinfo(raw)
	refuse := func(problem, advice string) error {
		return &URLError{URL: shown, Problem: problem, Advice: advice}
	}
	const example = "use an absolute address such as https://shop.example.com/hooks/bnpl"
	trimmed := strings.TrimSpace(raw)
	if trimmed == "" {
		return nil, refuse("it is empty", example)
	}
	if trimmed != raw || strings.ContainsAny(raw, " \t\r\n") {
		return nil, refuse("it contains spaces", "percent-encode spaces in the path (%20)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, refuse("it cannot be parsed", example)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		if u.Scheme == "" {
			return nil, refuse("it is not absolute", example)
		}
		return nil, refuse(fmt.Sprintf("the scheme %q is not http or https", u.Scheme), example)
	case u.Opaque != "" || u.Host == "":
		return nil, refuse("it has no host", example)
	case u.User != nil:
		return nil, refuse("it carries credentials (user:password@)",
			"drop them from the URL; to authenticate notifications, use --header-title with a secret header value")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, refuse("it has a #fragment, which is never sent to the server", "drop the part from # on")
	case u.Hostname() == "":
		return nil, refuse("it has no host", example)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, refuse(fmt.Sprintf("the port %q is not between 1 and 65535", p), "give a port from 1 to 65535, or none for the default")
		}
	}
	host, problem := normalizeHost(u.Hostname())
	if problem != "" {
		return nil, refuse(problem, "write the host name in plain ASCII letters, or in its xn-- (punycode) form")
	}
	if port := u.Port(); port != "" {
		u.Host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		u.Host = "[" + host + "]"
	} else {
		u.Host = host
	}
	return u, nil
}

// normalizeHost maps a host name to the ASCII form the rules judge and the
// service stores (IDNA, UTS #46 lookup profile): fullwidth letters and
// digits and compatibility look-alikes become the characters they stand
// for, so "ｌｏｃａｌｈｏｓｔ" is judged as localhost and "１２７.０.０.１" as a raw
// address. A name that does not normalise, or a label mixing scripts (a
// Cyrillic "а" inside a Latin name), is refused with a problem to show.
func normalizeHost(host string) (string, string) {
	if _, err := netip.ParseAddr(host); err == nil || isASCII(host) && !strings.Contains(strings.ToLower(host), "xn--") {
		return strings.ToLower(host), ""
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil || ascii == "" {
		return "", fmt.Sprintf("the host %q is not a valid international domain name", host)
	}
	uni, err := idna.Lookup.ToUnicode(ascii)
	if err != nil {
		return "", fmt.Sprintf("the host %q is not a valid international domain name", host)
	}
	for _, label := range strings.Split(uni, ".") {
		if s := mixedScripts(label); s != "" {
			return "", fmt.Sprintf("the host %q mixes %s letters in one label, a look-alike of another name", host, s)
		}
	}
	return ascii, ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// confusableScripts are the scripts whose letters pass for Latin ones.
var confusableScripts = []struct {
	name  string
	table *unicode.RangeTable
}{{"Latin", unicode.Latin}, {"Cyrillic", unicode.Cyrillic}, {"Greek", unicode.Greek}, {"Armenian", unicode.Armenian}, {"Cherokee", unicode.Cherokee}}

// mixedScripts names the scripts of a label that mixes letters of two of
// the confusable scripts ("Latin and Cyrillic"), "" when it does not.
func mixedScripts(label string) string {
	var seen []string
	for _, r := range label {
		for _, sc := range confusableScripts {
			if unicode.Is(sc.table, r) && !containsString(seen, sc.name) {
				seen = append(seen, sc.name)
			}
		}
	}
	if len(seen) < 2 {
		return ""
	}
	return strings.Join(seen, " and ")
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func normalize(u *url.URL) string {
	n := *u
	n.Scheme = strings.ToLower(n.Scheme)
	host, port := strings.ToLower(n.Hostname()), n.Port()
	if (n.Scheme == "http" && port == "80") || (n.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	n.Host = host
	n.Path = strings.TrimRight(n.Path, "/")
	if n.RawPath != "" {
		n.RawPath = strings.TrimRight(n.RawPath, "/")
	}
	n.ForceQuery = false
	return n.String()
}

const publicHostAdvice = "register a public host name; to receive notifications on this machine, run `bnpl listen` behind a public tunnel, or register it with a sandbox started with --allow-local-webhooks (`bnpl sandbox serve --allow-local-webhooks`)"

// checkStaticHost refuses what no lookup could make public: localhost, raw
// IP addresses, and names that cannot be public.
func checkStaticHost(host string) *URLError {
	const advice = publicHostAdvice
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if addr, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		if r := netguard.Check(addr); r != nil {
			return &URLError{Problem: "the host is a raw IP address, and " + r.Error(), Advice: advice}
		}
		return &URLError{Problem: "the host is a raw IP address; the service takes host names only", Advice: advice}
	}
	if net.ParseIP(name) != nil {
		return &URLError{Problem: "the host is a raw IP address; the service takes host names only", Advice: advice}
	}
	labels := strings.Split(name, ".")
	last := labels[len(labels)-1]
	if name == "localhost" {
		return &URLError{Problem: "localhost is not a public host", Advice: advice}
	}
	for _, s := range reservedSuffixes {
		if last == s {
			return &URLError{Problem: fmt.Sprintf("the host %q does not resolve (names under .%s are reserved and never public)", host, s),
				Advice: "register a public host name; .invalid, .test, .localhost, .local and .internal never resolve"}
		}
	}
	if len(labels) < 2 || slicesContainsEmpty(labels) {
		return &URLError{Problem: fmt.Sprintf("%q is not a public host name", host), Advice: advice}
	}
	if _, err := strconv.Atoi(last); err == nil || isHexNumber(last) {
		// No top-level domain is numeric: 127.1 or 0x7f.1 are addresses in
		// disguise, which some resolvers would accept.
		return &URLError{Problem: "the host is an IP address in a short or hex form", Advice: advice}
	}
	return nil
}

// checkResolves refuses, as the service does, names that do not resolve
// and names that resolve only to addresses netguard refuses.
func checkResolves(ctx context.Context, res Resolver, host string) *URLError {
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if res == nil {
		res = net.DefaultResolver
	}
	addrs, err := res.LookupIPAddr(ctx, name)
	if err != nil || len(addrs) == 0 {
		var dnsErr *net.DNSError
		problem := fmt.Sprintf("the host %q does not resolve", host)
		if errors.As(err, &dnsErr) && !dnsErr.IsNotFound {
			problem = fmt.Sprintf("the host %q could not be resolved (%s)", host, dnsErr.Err)
		}
		return &URLError{Problem: problem, Advice: "check the name, and that this machine can resolve it; the service refuses names that do not resolve"}
	}
	var refusal *netguard.Refusal
	for _, a := range addrs {
		r := netguard.CheckIP(a.IP)
		if r == nil {
			return nil
		}
		if refusal == nil {
			refusal = r
		}
	}
	return &URLError{Problem: fmt.Sprintf("the host %q resolves only to addresses that never receive webhooks (%v)", host, refusal), Advice: publicHostAdvice}
}

func slicesContainsEmpty(labels []string) bool {
	for _, l := range labels {
		if l == "" {
			return true
		}
	}
	return false
}

// isHexNumber reports a label such as 0x7f; plain letters a-f are left
// alone, since .de and .ca are real top-level domains.
func isHexNumber(s string) bool {
	s, ok := strings.CutPrefix(s, "0x")
	if !ok || s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// redactUserinfo drops "user:password@" from a URL for messages, also
// from one that does not parse.
func redactUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return secret.RedactUserinfo(raw)
	}
	if u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}
