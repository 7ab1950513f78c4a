package sandbox

import (
	"net/http"
	"path"
	"reflect"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
	"github.com/bnpl-cli/bnpl/internal/sandbox/reqlog"
)

// routes registers every endpoint of one region on mux: the service's,
// the sandbox's own, and seeding and export (which drive the whole
// sandbox, so they are registered here).
func (s *Sandbox) routes(mux *http.ServeMux, region string) {
	s.Service.Routes(mux, region)
	s.Local.Routes(mux, region)
	s.fixtureRoutes(mux)
}

func (s *Sandbox) buildHandler(region string) http.Handler {
	mux := http.NewServeMux()
	s.routes(mux, region)
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !routable(mux, r) {
			http.NotFound(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
	// The rate limit is outside the faults, so a request it refuses draws
	// no fault and waits no latency, as a real service's gateway would
	// refuse it first; the request log is outside both, so it records
	// what the client saw.
	h = middleware.ClockStepMiddleware(s.Clock, h) // innermost: a refused request does not move it
	h = middleware.FaultMiddleware(s.faults, h)
	h = middleware.RateLimitMiddleware(s.limits, s.State, h)
	h = middleware.DateMiddleware(s.State, h) // the fault and 429 answers too
	h = reqlog.Middleware(s.Log, region, h)
	guard := middleware.OriginGuard{AllowHosts: s.allowHosts, PublicURL: s.PublicURLs[region], RemoteControl: s.remoteControl}
	return middleware.GuardSandboxPaths(guard, h) // outermost: see middleware.GuardSandboxPaths
}

// redirectType is the type of the handler ServeMux answers with when it
// would redirect (to a cleaned path, or to add a trailing slash).
var redirectType = reflect.TypeOf(http.RedirectHandler("/", http.StatusMovedPermanently))

// routable tells whether mux has a route for exactly r's method and path.
// The service answers a plain "404 page not found" where ServeMux would do
// otherwise:
//   - a path that cleaning changes (double slashes, "." or ".." segments):
//     ServeMux redirects it to the clean path;
//   - a known path with a method no pattern names: ServeMux answers 405,
//     and it lets a GET pattern serve HEAD too.
func routable(mux *http.ServeMux, r *http.Request) bool {
	if r.URL.Path != "" && r.URL.Path != "*" && cleanPath(r.URL.Path) != r.URL.Path {
		return false
	}
	handler, pattern := mux.Handler(r)
	if pattern == "" || reflect.TypeOf(handler) == redirectType {
		return false
	}
	// A pattern is "[METHOD ][HOST]/PATH"; a pattern without a method
	// would take any, but ours all name one.
	if method, _, hasMethod := strings.Cut(pattern, " "); hasMethod && method != r.Method {
		return false
	}
	return true
}

// cleanPath is p as path.Clean makes it, keeping a trailing slash, the
// form ServeMux compares paths in.
func cleanPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}
