package middleware

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
)

// The browser guard of the sandbox's own paths (/_sandbox/: the control
// endpoints, the dashboard and the hosted payment page). The control
// endpoints answer loopback clients only, but a browser on the developer's
// machine is a loopback client: without this guard any page on the
// internet could drive the sandbox through it, with a form that posts
// cross-site, or by rebinding its own name to 127.0.0.1.
//
//   - A state-changing request (any method but GET, HEAD and OPTIONS) is
//     refused when its Origin is not the listener's own (scheme://host:port
//     as the request reached it, or the region's public URL), or when the
//     browser says it comes from another site (Sec-Fetch-Site: cross-site).
//     A request the browser marks same-origin, or that has no Origin at
//     all (curl, the bnpl CLI), is accepted.
//   - Any request that arrived over a connection, on any path (the
//     service's /api/ ones too), is refused when its Host
//     names something other than an address, localhost, the host of the
//     region's public URL, or a name given in Options.AllowHosts (the
//     service name other containers use): any other name is a name rebound
//     to this machine. An address in Host cannot be rebound; the CLI's
//     embedded sandbox, which has no connection, is not concerned.
//
// Both answer 403 with the service's error body, saying why.

const (
	crossSiteMessage = "request from another site refused: the sandbox's control endpoints and dashboard take changes only from their own pages, or from clients that send no Origin (curl, the bnpl CLI)"
	foreignHostMsg   = "request refused: the Host header %q is not this sandbox's address; use http://127.0.0.1:PORT or http://localhost:PORT, or name the host with bnpl sandbox serve --allowed-host (a name that merely resolves to this machine may be a DNS rebinding attack)"
)

// remoteControlKey marks, in a request's context, that the control
// endpoints answer it whatever its client address (AllowRemoteControl).
type remoteControlKey struct{}

// OriginGuard is what the browser guard knows: the hosts it accepts
// besides addresses and localhost (Options.AllowHosts, lower case), the
// region's public URL, and whether the control endpoints are open to
// clients that are not loopback (Options.AllowRemoteControl).
type OriginGuard struct {
	AllowHosts    map[string]bool
	PublicURL     string
	RemoteControl bool
}

// GuardSandboxPaths wraps a region's handler with the browser guard: the
// Host check on every path, the cross-site check on the paths under
// /_sandbox/.
func GuardSandboxPaths(s OriginGuard, h http.Handler) http.Handler {
	publicHost, publicOrigin := "", ""
	if u, err := url.Parse(s.PublicURL); err == nil && u.Host != "" {
		publicHost = strings.ToLower(u.Hostname())
		publicOrigin = strings.ToLower(u.Scheme + "://" + u.Host)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The Host is checked on every path, the service's (/api/) as
		// well: a page rebinding its name to this machine would otherwise
		// use the sandbox's public built-in keys through the browser.
		if _, overConn := r.Context().Value(http.LocalAddrContextKey).(net.Addr); overConn && !TrustedHost(r.Host, publicHost) && !s.AllowHosts[NormalHost(r.Host)] {
			edge.WriteError(w, &edge.Refusal{Status: http.StatusForbidden, ErrorType: "no_permission", Message: foreignHost(r.Host)})
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/_sandbox/") && r.URL.Path != "/_sandbox" {
			h.ServeHTTP(w, r)
			return
		}
		if changesState(r.Method) && crossSite(r, publicOrigin) {
			edge.WriteError(w, &edge.Refusal{Status: http.StatusForbidden, ErrorType: "no_permission", Message: crossSiteMessage})
			return
		}
		if s.RemoteControl {
			r = r.WithContext(context.WithValue(r.Context(), remoteControlKey{}, true))
		}
		h.ServeHTTP(w, r)
	})
}

func changesState(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// crossSite tells whether a browser sent r from a page that is not the
// listener's own.
func crossSite(r *http.Request, publicOrigin string) bool {
	// The browser's own word, which no page can set, decides when given:
	// it says same-origin even where the Origin reads "null" (a page with
	// Referrer-Policy no-referrer).
	switch strings.ToLower(strings.TrimSpace(r.Header.Get("Sec-Fetch-Site"))) {
	case "cross-site":
		return true
	case "same-origin":
		return false
	}
	origins, present := r.Header["Origin"]
	if !present {
		return false
	}
	if len(origins) != 1 {
		return true
	}
	origin := strings.ToLower(strings.TrimSpace(origins[0]))
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	own := scheme + "://" + strings.ToLower(r.Host)
	// "null" (a sandboxed frame, a file:// page) and anything else that is
	// not exactly our origin is another site.
	return origin != own && (publicOrigin == "" || origin != publicOrigin)
}

// TrustedHost tells whether a Host header names this machine in a way no
// DNS answer can fake: an address, localhost (which browsers resolve
// themselves), or the host of the region's public URL.
func TrustedHost(hostport, publicHost string) bool {
	host := NormalHost(hostport)
	if host == "" {
		return false
	}
	if net.ParseIP(host) != nil {
		return true
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	return publicHost != "" && host == publicHost
}

// NormalHost is the host name of a Host header (or of a name given to
// --allow-host) without its port, brackets and final dot, in lower case.
func NormalHost(hostport string) string {
	host := strings.TrimSpace(hostport)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
}

// foreignHost is the refusal of a Host header, cut to a length a message
// can carry.
func foreignHost(host string) string {
	if len(host) > 100 {
		host = host[:100] + "..."
	}
	return fmt.Sprintf(foreignHostMsg, host)
}
