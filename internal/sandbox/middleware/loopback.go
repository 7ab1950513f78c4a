package middleware

import (
	"net"
	"net/http"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
)

// LoopbackOnly keeps the sandbox's control endpoints to the local machine,
// unless the sandbox was told to open them (Options.AllowRemoteControl:
// guardSandboxPaths marks the request).
func LoopbackOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if remote, _ := r.Context().Value(remoteControlKey{}).(bool); remote {
			h(w, r)
			return
		}
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			edge.WriteError(w, &edge.Refusal{Status: 403, ErrorType: "no_permission", Message: "sandbox control endpoints answer loopback clients only"})
			return
		}
		h(w, r)
	}
}
