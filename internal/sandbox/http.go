package sandbox

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path"
	"reflect"
	"strings"

	"github.com/google/uuid"
)

// apiError is a refusal in the service's error body.
type apiError struct {
	status    int
	errorType string
	message   string // "" leaves "error" out, as some 401/403 answers do
	fields    []fieldError
}

type fieldError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *apiError) Error() string {
	if e.message != "" {
		return e.message
	}
	if len(e.fields) > 0 {
		return e.fields[0].Field + ": " + e.fields[0].Message
	}
	return e.errorType
}

// StatusCode is the HTTP status the service answers with.
func (e *apiError) StatusCode() int { return e.status }

func badData(msg string) *apiError {
	return &apiError{status: 400, errorType: "bad_data", message: msg}
}

func fieldErrors(fields ...fieldError) *apiError {
	return &apiError{status: 400, errorType: "bad_data", fields: fields}
}

func notAuthorized(msg string) *apiError {
	return &apiError{status: 401, errorType: "not_authorized", message: msg}
}

var (
	errNoSuchPayment  = &apiError{status: 404, errorType: "not_found", message: "no such payment"}
	errNoSuchSession  = &apiError{status: 404, errorType: "not_found", message: "no such checkout session"}
	errLocked         = &apiError{status: 409, errorType: "conflict", message: "could not acquire lock: payment is locked"}
	errInvalidID      = badData("invalid payment id")
	errWrongRegion    = &apiError{status: 403, errorType: "no_permission", message: "merchant region does not match cluster region"}
	errTokensDisabled = &apiError{status: 403, errorType: "no_permission"}
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte{'\n'})
}

// writeRawJSON answers JSON already encoded.
func writeRawJSON(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte{'\n'})
}

// errorBody is the service's error body, in its field order.
type errorBody struct {
	Status    string       `json:"status"`
	ErrorType string       `json:"errorType"`
	Error     string       `json:"error,omitempty"`
	Errors    []fieldError `json:"errors,omitempty"`
}

// writeError answers err in the service's error body; anything that is not
// a refusal is an internal failure.
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{status: 500, errorType: "internal", message: "Internal Server Error"}
	}
	body := errorBody{Status: "error", ErrorType: ae.errorType}
	if len(ae.fields) > 0 {
		body.Errors = ae.fields
	} else {
		body.Error = ae.message
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(ae.status)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte{'\n'})
}

// validUUID accepts only the canonical 36-character form, as ids appear in
// the service's answers.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// canonicalID checks id as validUUID does and answers it in lower case.
// Ids are stored as uuid.NewString writes them, in lower case, and looked
// up by string equality; a client that sends an id in capitals (which
// validUUID accepts, hex being case-blind) must find the same object
// rather than a 404.
func canonicalID(id string) (string, bool) {
	if !validUUID(id) {
		return "", false
	}
	return strings.ToLower(id), true
}

// caller is who a request acts for, after authentication.
type caller struct {
	merchant *Merchant
	isTest   bool
}

func (c caller) visibility() *visibility {
	return &visibility{merchantCode: c.merchant.Code, isTest: c.isTest}
}

// authMessages are the 401 messages of one family of endpoints. The
// service does not word a refused key the same way everywhere: its Errors
// tables give each family its own, so the policy is chosen per route when
// the route is registered rather than patched into handlers.
type authMessages struct {
	noBearer  string // header absent, or not a Bearer one
	notSecret string // a bearer value that cannot be a secret key (no sk_ prefix)
	unknown   string // a well-formed key that no merchant has
}

var (
	// authGeneral is what Authentication rule 2 lists as seen, used where
	// an endpoint's table names no message of its own.
	authGeneral = authMessages{noBearer: "missing Bearer scheme", notSecret: "invalid secret key", unknown: "api key not found"}
	// authCheckout: session creation answers "merchant is null" for a
	// missing or wrong Authorization, the message it also gives for a
	// merchant_code the key is not bound to.
	authCheckout = authMessages{noBearer: "merchant is null", notSecret: "merchant is null", unknown: "merchant is null"}
	// authPaymentHooks: "invalid secret key" when the key is missing or
	// malformed, "api key not found" for a well-formed unknown one.
	authPaymentHooks = authMessages{noBearer: "invalid secret key", notSecret: "invalid secret key", unknown: "api key not found"}
	// authDisputeHooks: the table lists one 401 message only.
	authDisputeHooks = authMessages{noBearer: "invalid secret key", notSecret: "invalid secret key", unknown: "invalid secret key"}
)

// authenticate reads the bearer key. A header that is absent or not a
// Bearer one, a value that cannot be a secret key (no sk_ prefix) and a
// well-formed key nobody has are each 401, worded by msgs. A key of the
// other region's merchant is 403 whatever the family.
func (s *Service) authenticate(r *http.Request, region string, msgs authMessages) (caller, error) {
	h := r.Header.Get("Authorization")
	scheme, key, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return caller{}, notAuthorized(msgs.noBearer)
	}
	key = strings.TrimSpace(key)
	if !strings.HasPrefix(key, "sk_") {
		return caller{}, notAuthorized(msgs.notSecret)
	}
	info, found := s.keys[key]
	if !found {
		return caller{}, notAuthorized(msgs.unknown)
	}
	if info.merchant.Region != region {
		return caller{}, errWrongRegion
	}
	return caller(info), nil
}

// authed wraps an API handler with authentication, refusals worded by msgs.
func (s *Service) authed(region string, msgs authMessages, h func(http.ResponseWriter, *http.Request, caller)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// The answer's Date is the sandbox's clock, advances included, as
		// the service's Date and its created_at times share one clock: a
		// client tells by them whether a move predates its request.
		if now, err := s.now(r.Context()); err == nil {
			w.Header().Set("Date", now.Format(http.TimeFormat))
		}
		c, err := s.authenticate(r, region, msgs)
		if err != nil {
			writeError(w, err)
			return
		}
		h(w, r, c)
	}
}

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

// routes registers the service's own endpoints of one region. Patterns
// carry their method; a wrong method falls through to a plain 404 (see
// buildHandler).
func (s *Service) routes(mux *http.ServeMux, region string) {
	s.checkoutRoutes(mux, region)
	s.paymentRoutes(mux, region)
	s.webhookRoutes(mux, region)
	s.disputeWebhookRoutes(mux, region)
	s.disputeRoutes(mux, region)
}

// routes registers the sandbox's own endpoints of one region: control,
// hosted page, dashboard, health, deliveries and the request log.
func (s *Local) routes(mux *http.ServeMux, region string) {
	s.controlRoutes(mux, region)
	s.hppRoutes(mux, region)
	s.dashboardRoutes(mux, region)
	s.deliveryRoutes(mux)
	mux.HandleFunc("POST /_sandbox/payments/{id}/dispute", loopbackOnly(s.handleControlOpenDispute))
	mux.HandleFunc("POST /_sandbox/disputes/{id}/resolve", loopbackOnly(s.handleControlResolveDispute))
	mux.HandleFunc("GET /_sandbox/health", s.handleHealth)
}

func (s *Sandbox) buildHandler(region string) http.Handler {
	mux := http.NewServeMux()
	s.Service.routes(mux, region)
	s.Local.routes(mux, region)
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
	h = faultMiddleware(s.faults, h)
	h = rateLimitMiddleware(s.limits, s.State, h)
	h = requestLogMiddleware(s.reqlog, region, h)
	guard := originGuard{allowHosts: s.allowHosts, publicURL: s.publicURLs[region], remoteControl: s.remoteControl}
	return guardSandboxPaths(guard, h) // outermost: see origin.go
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
