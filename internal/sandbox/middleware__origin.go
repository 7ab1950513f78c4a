package sandbox

import (
	"net"
	"net/http"
)

// loopbackOnly keeps the sandbox's control endpoints to the local machine,
// unless the sandbox was told to open them (Options.AllowRemoteControl:
// guardSandboxPaths marks the request).
func loopbackOnly(h http.HandlerFunc) http.HandlerFunc {
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
			writeError(w, &apiError{status: 403, errorType: "no_permission", message: "sandbox control endpoints answer loopback clients only"})
			return
		}
		h(w, r)
	}
}
