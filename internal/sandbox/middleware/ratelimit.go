package middleware

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"golang.org/x/time/rate"
)

// The service's reported limits for test keys. Each is a token bucket:
// a burst of the full allowance, refilled evenly, so a client that keeps
// under the average rate is never refused and one that bursts is refused
// only for as long as it takes the bucket to refill.
const (
	SessionLimit  = 10               // checkout sessions...
	SessionWindow = 10 * time.Second // ...per this long
	CallLimit     = 50               // other calls per second
)

// RateLimiter holds the buckets of every test key seen so far. Its clock is
// the sandbox's own Options.Clock, so a FakeClock drives it in tests
// without sleeping; the /_sandbox/clock offset does not apply, because
// moving the payments' clock forward is not meant to hand out tokens.
type RateLimiter struct {
	clock store.Clock
	mu    sync.Mutex
	keys  map[string]*keyBuckets
}

type keyBuckets struct {
	sessions *rate.Limiter // POST /api/v2/checkout
	calls    *rate.Limiter // everything else on /api/
}

func NewRateLimiter(clock store.Clock) *RateLimiter {
	return &RateLimiter{clock: clock, keys: map[string]*keyBuckets{}}
}

func (l *RateLimiter) buckets(key string) *keyBuckets {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.keys[key]
	if b == nil {
		b = &keyBuckets{
			sessions: rate.NewLimiter(rate.Every(SessionWindow/SessionLimit), SessionLimit),
			calls:    rate.NewLimiter(rate.Limit(CallLimit), CallLimit),
		}
		l.keys[key] = b
	}
	return b
}

// admit takes a token for the request, or says how long until one is
// free. A refused request takes no token, so a client retrying after
// Retry-After is not pushed further back by its own refusals.
func (l *RateLimiter) admit(key string, session bool) (wait time.Duration) {
	b := l.buckets(key)
	lim := b.calls
	if session {
		lim = b.sessions
	}
	now := l.clock.Now()
	res := lim.ReserveN(now, 1)
	if !res.OK() {
		return SessionWindow // cannot happen with a burst of at least 1
	}
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d
	}
	return 0
}

// bearerKey is the key of a request's Authorization header, "" if none.
func bearerKey(r *http.Request) string {
	scheme, key, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(key)
}

// RateLimitMiddleware enforces the test-key limits on the service's paths.
// Requests that are not from one of the sandbox's test keys pass through:
// a live key has no published limit, and a missing or unknown key earns
// its 401 from the handler.
func RateLimitMiddleware(l *RateLimiter, s *store.State, h http.Handler) http.Handler {
	if l == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			h.ServeHTTP(w, r)
			return
		}
		key := bearerKey(r)
		info, found := s.Keys[key]
		if !found || !info.IsTest {
			h.ServeHTTP(w, r)
			return
		}
		session := r.Method == http.MethodPost && r.URL.Path == "/api/v2/checkout"
		wait := l.admit(key, session)
		if wait <= 0 {
			h.ServeHTTP(w, r)
			return
		}
		// Whole seconds, rounded up: a client that waits exactly that long
		// finds a token.
		secs := int((wait + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		msg := fmt.Sprintf("too many requests: a test key may make %d requests per second", CallLimit)
		if session {
			msg = fmt.Sprintf("too many requests: a test key may create %d checkout sessions per %d seconds", SessionLimit, int(SessionWindow/time.Second))
		}
		edge.WriteError(w, &edge.Refusal{Status: http.StatusTooManyRequests, ErrorType: errorTypeRateLimited, Message: msg})
	})
}
