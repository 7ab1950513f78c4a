package api

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// retryPolicy says which failures of a request may be retried, which
// depends on whether sending it twice could act twice.
type retryPolicy int

const (
	// retrySafe is for requests that may be sent again whatever happened
	// to the first: reads, PUTs that set a value, and money moves, which
	// carry a fixed reference_id and are reconciled. Network errors, 5xx,
	// 429 and a locked payment are retried.
	retrySafe retryPolicy = iota
	// retryRefused is for requests that could act twice (checkout
	// creation, webhook registration, deletes, dispute answers): only
	// failures that prove the service did not act are retried, namely no
	// connection made, 429, and a locked payment.
	retryRefused
)

const (
	backoffBase = 200 * time.Millisecond
	backoffCap  = 5 * time.Second
	// maxServerWait bounds the Retry-After the client honours by waiting;
	// a longer one is handed to the person (exit 8 with the wait in the
	// hint) rather than freezing the command.
	maxServerWait = time.Minute
)

// result is the final answer of a call and how it came about. After an
// error, status, header and body are those of the final attempt (zero when
// it got no answer).
type result struct {
	status int
	header http.Header
	body   []byte
	// attempts is how many times the request was sent.
	attempts int
	// unknownAttempts counts attempts the service may have acted on
	// without the client learning of it (a dropped connection, a timeout,
	// a 5xx); lastUnknown says whether the final one was such.
	unknownAttempts int
	lastUnknown     bool
}

// earlierUnknown reports whether an attempt before the final one may have
// been acted on, so that the final answer may be about our own earlier
// attempt.
func (r *result) earlierUnknown() bool {
	n := r.unknownAttempts
	if r.lastUnknown {
		n--
	}
	return n > 0
}

// verdict is the judgement of one attempt.
type verdict struct {
	err     error
	retry   bool
	unknown bool
	// wait is what the service asked for; gate makes the whole client
	// wait it (a 429 throttles the merchant, not one request).
	wait time.Duration
	gate bool
}

// execute sends cl, retrying as its policy allows, and returns the final
// 2xx answer or the error of the final attempt. The result is non-nil
// whenever something was attempted, errors included.
func (c *Client) execute(ctx context.Context, cl *call) (*result, error) {
	if c.dryRun != nil && !cl.sendInDryRun {
		if err := c.writeDryRun(cl); err != nil {
			return nil, err
		}
		return nil, ErrDryRun
	}
	if c.proof != nil {
		if err := c.proof.check(ctx); err != nil {
			return nil, err
		}
	}
	res := &result{}
	for {
		if wait := c.gate.remaining(c.now()); wait > 0 {
			if err := c.sleep(ctx, wait); err != nil {
				return res, c.stopped(cl, res, err)
			}
		}
		if err := ctx.Err(); err != nil {
			return res, c.stopped(cl, res, err)
		}
		res.attempts++
		a := c.send(ctx, cl, res.attempts)
		v := c.judge(cl, a)
		res.lastUnknown = v.unknown
		if v.unknown {
			res.unknownAttempts++
		}
		// Kept for errors too: `bnpl api` prints a refusal's body and headers.
		res.status, res.header, res.body = a.status, a.header, a.body
		if e, ok := v.err.(*APIError); ok {
			res.body = e.Body // masked
		}
		if v.err == nil {
			res.body = c.maskAnswer(cl, a.body)
			return res, nil
		}
		if v.gate {
			// Held even when this call gives up: the other requests of a
			// bulk run would only earn more 429s.
			c.gate.hold(c.now().Add(v.wait))
		}
		if ctx.Err() != nil || !v.retry || res.attempts > c.retries {
			return res, v.err
		}
		if v.gate {
			continue // the wait happens at the gate, at the top of the loop
		}
		wait := v.wait
		if wait <= 0 {
			wait = backoff(res.attempts)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return res, c.stopped(cl, res, err)
		}
	}
}

// stopped is the error of a call that ctx ended between attempts.
func (c *Client) stopped(cl *call, res *result, err error) error {
	if res.attempts == 0 {
		return fmt.Errorf("%s: %w", cl.opName(), err)
	}
	return &NetworkError{Op: cl.opName(), Route: cl.op, Err: err, masker: c.maskerFor(cl)}
}

func (c *Client) judge(cl *call, a attempt) verdict {
	if a.local != nil {
		return verdict{err: a.local}
	}
	if a.err != nil {
		// The in-process sandbox's state file failed under the request:
		// its own error (exit code and hint), not a network failure.
		var state interface {
			error
			SandboxState() string
		}
		if errors.As(a.err, &state) {
			return verdict{err: state}
		}
		ne := &NetworkError{Op: cl.opName(), Route: cl.op, Err: a.err, masker: c.maskerFor(cl)}
		switch {
		case certificateProblem(a.err):
			return verdict{err: ne}
		case neverConnected(a.err):
			return verdict{err: ne, retry: true}
		}
		return verdict{err: ne, retry: cl.policy == retrySafe, unknown: true}
	}
	if a.status >= 200 && a.status < 300 {
		return verdict{}
	}
	if ns := c.notService(cl, a.status, a.header, a.body); ns != nil {
		return verdict{err: ns}
	}
	e := parseAPIError(a.status, a.header, a.body, cl.method, cl.path, c.now()).mask(c.maskerFor(cl))
	e.region = c.region
	switch {
	case a.status == http.StatusTooManyRequests:
		v := verdict{err: e, retry: e.RetryAfter <= maxServerWait}
		if e.RetryAfter > 0 && v.retry {
			v.wait, v.gate = e.RetryAfter, true
		}
		return v
	case a.status == http.StatusConflict && e.has(msgLocked):
		return verdict{err: e, retry: true}
	case a.status >= 500:
		v := verdict{err: e, retry: cl.policy == retrySafe, unknown: true}
		if e.RetryAfter > 0 && e.RetryAfter <= maxServerWait {
			v.wait = e.RetryAfter
		}
		return v
	}
	return verdict{err: e}
}

// neverConnected reports whether err happened before the request could
// have been sent: nothing reached the service, so any request may be
// retried.
func neverConnected(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect") {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || certificateProblem(err)
}

// certificateProblem is a TLS verification failure: nothing was sent, and
// sending again will not help.
func certificateProblem(err error) bool {
	var cv *tls.CertificateVerificationError
	return errors.As(err, &cv)
}

// backoff is the wait before attempt n+1: exponential from backoffBase,
// capped at backoffCap, with the upper half jittered so that the workers of
// a bulk run do not retry in step.
func backoff(n int) time.Duration {
	d := backoffCap
	if n < 16 {
		d = min(backoffBase<<(n-1), backoffCap)
	}
	half := d / 2
	return half + rand.N(half+1)
}

// parseRetryAfter reads Retry-After in either of its forms, seconds or an
// HTTP date; zero when absent, unreadable or already past.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		const day = 24 * 60 * 60
		return time.Duration(min(secs, day)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// rateGate holds back every request of a client until the time a 429 asked
// for has passed.
type rateGate struct {
	mu    sync.Mutex
	until time.Time
}

func (g *rateGate) hold(until time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if until.After(g.until) {
		g.until = until
	}
}

func (g *rateGate) remaining(now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.until.Sub(now)
}
