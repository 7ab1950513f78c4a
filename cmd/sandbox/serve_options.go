package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// sandboxOptions turns serve's settings into the sandbox's, checking each:
// where it listens and who may reach it, its state, and how it behaves.
func (o *ServeOptions) sandboxOptions(cmd *cobra.Command, f *cmdutil.Factory) (sandbox.ServeOptions, error) {
	so := sandbox.ServeOptions{}
	var err error
	if so.AEAddr, err = cmdutil.ListenAddr(cmd.Context(), o.AEAddr, o.setting("ae-addr")); err != nil {
		return so, err
	}
	if so.SAAddr, err = cmdutil.ListenAddr(cmd.Context(), o.SAAddr, o.setting("sa-addr")); err != nil {
		return so, err
	}
	if so.Instance, err = o.instance(); err != nil {
		return so, err
	}
	if err := o.reach(&so); err != nil {
		return so, err
	}
	if so.StatePath, err = o.statePath(f); err != nil {
		return so, err
	}
	if err := o.behaviour(&so); err != nil {
		return so, err
	}
	so.DeliveryLog = f.IO.ErrOut
	so.Prepare, err = seedFilePrepare(cmd, f, o)
	return so, err
}

// instance is --instance, checked, or a random id.
func (o *ServeOptions) instance() (string, error) {
	id := strings.TrimSpace(o.Instance)
	if id == "" {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		return hex.EncodeToString(b), nil
	}
	ok := len(id) <= 64
	for _, c := range id {
		ok = ok && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.')
	}
	if !ok {
		return "", cmdutil.Usagef("%s %q: want up to 64 letters, digits, '-', '_' or '.' (such as a CI job's id)", o.setting("instance"), o.Instance)
	}
	return id, nil
}

// reach sets who may reach the sandbox, and by which names.
func (o *ServeOptions) reach(so *sandbox.ServeOptions) error {
	publicURLs, err := parsePublicURLs(o.PublicURLs)
	if err != nil {
		return err
	}
	so.PublicURLs = publicURLs
	for _, h := range o.AllowHosts {
		if err := checkHostName(h); err != nil {
			return err
		}
	}
	so.AllowHosts, so.AllowRemoteControl = o.AllowHosts, o.AllowRemoteControl
	return nil
}

// behaviour sets the clock, faults, limits, webhooks and merchants.
func (o *ServeOptions) behaviour(so *sandbox.ServeOptions) error {
	so.AuthExpiry = o.AuthExpiry
	faults, err := sandbox.ParseFaultSpec(o.Faults)
	if err != nil {
		return cmdutil.Usagef("--faults: %v", err)
	}
	so.Faults, so.Seed, so.RateLimit = faults, o.Seed, o.RateLimit
	if so.ClockStart, err = fixedClockStart(o); err != nil {
		return err
	}
	if o.RetryScale <= 0 {
		return cmdutil.Usagef("--webhook-retry-scale must be positive, got %g", o.RetryScale)
	}
	so.AllowLocalWebhooks, so.WebhookRetryScale = o.AllowLocalWebhooks, o.RetryScale
	so.ResolveHosts, so.NoRequestLog = o.ResolveHosts, o.NoRequestLog
	if o.Merchants != "" {
		ms, err := sandbox.LoadMerchants(o.Merchants)
		if err != nil {
			return cmdutil.Refuse("see docs/sandbox.md for the merchants file format", "--merchants: %v", err)
		}
		so.Merchants = withBuiltins(ms)
	}
	return nil
}

// warnExposure warns about listeners and control endpoints other machines
// can reach, naming each setting as it was given (a flag, or the variable
// a container image sets).
func (o *ServeOptions) warnExposure(w io.Writer) {
	for _, a := range []struct{ region, addr, flag string }{{"ae", o.AEAddr, "ae-addr"}, {"sa", o.SAAddr, "sa-addr"}} {
		if !cmdutil.LoopbackAddr(a.addr) {
			fmt.Fprintf(w, "warning: %s is not a loopback address: the %s listener's API and hosted payment pages are reachable from other machines (%s keeps them on this one)\n",
				o.given(a.flag, a.addr), a.region, o.given(a.flag, "127.0.0.1:PORT"))
		}
	}
	if o.AllowRemoteControl {
		fmt.Fprintf(w, "warning: %s: any client that reaches the listeners can approve, reject, reset and read the request log through /_sandbox/ (without it they answer loopback clients only)\n", o.controlSetting)
	}
}

// given is a setting with its value as it was given: ENV=value, or
// --flag value.
func (o *ServeOptions) given(flag, value string) string {
	if env, ok := o.fromEnv[flag]; ok {
		return env + "=" + value
	}
	return "--" + flag + " " + value
}

// parsePublicURLs reads --public-url REGION=URL pairs: an absolute http or
// https URL with a host and no path, query or fragment, once per region.
func parsePublicURLs(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		region, raw, ok := strings.Cut(p, "=")
		region = strings.ToLower(strings.TrimSpace(region))
		if !ok || (region != "ae" && region != "sa") {
			return nil, cmdutil.Usagef("--public-url %q: want REGION=URL with REGION ae or sa, e.g. ae=http://bnpl-sandbox:8700", p)
		}
		if _, dup := out[region]; dup {
			return nil, cmdutil.Usagef("--public-url: region %s given twice", region)
		}
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, cmdutil.Usagef("--public-url %s=%q: want an http or https URL with a host and no path, e.g. http://bnpl-sandbox:8700", region, raw)
		}
		out[region] = u.Scheme + "://" + u.Host
	}
	return out, nil
}

// checkHostName refuses an --allowed-host value that is not a plain host name
// or address (no scheme, port or path).
func checkHostName(h string) error {
	name := strings.TrimSuffix(strings.TrimSpace(h), ".")
	ok := name != "" && len(name) <= 253
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			ok = false
		}
	}
	if !ok {
		return cmdutil.Usagef("--allowed-host %q: want a host name such as bnpl-sandbox (no scheme, port or path)", h)
	}
	return nil
}

// withBuiltins adds the merchants of a --merchants file to the built-in
// ones, as a person expects of "more merchants": the examples and the
// README keep working. A file's merchant with a built-in's code or key
// takes its place.
func withBuiltins(ms []sandbox.Merchant) []sandbox.Merchant {
	taken := map[string]bool{}
	for _, m := range ms {
		for _, k := range []string{"code:" + m.Code, "key:" + m.TestKey, "key:" + m.LiveKey} {
			taken[k] = true
		}
	}
	var out []sandbox.Merchant
	for _, b := range sandbox.BuiltinMerchants() {
		if !taken["code:"+b.Code] && !taken["key:"+b.TestKey] && !taken["key:"+b.LiveKey] {
			out = append(out, b)
		}
	}
	return append(out, ms...)
}
