package api

import (
	"context"
	"errors"
	"net/http"
	"testing"
)

// stateFailure stands for the embedded sandbox's state file failing under
// a request, as its transport reports it.
type stateFailure struct{}

func (stateFailure) Error() string        { return "sandbox state /x/sandbox.db: disk I/O error" }
func (stateFailure) SandboxState() string { return "/x/sandbox.db" }
func (stateFailure) ExitCode() int        { return 12 }

type failingTransport struct{ calls int }

func (f *failingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	f.calls++
	return nil, stateFailure{}
}

// TestStateFailureIsNotANetworkFailure: a state file that fails under a
// request is said as itself (its exit code), sent once, never called an
// unknown outcome.
func TestStateFailureIsNotANetworkFailure(t *testing.T) {
	ft := &failingTransport{}
	c, sl := newTestClient(t, "http://127.0.0.1:1", func(o *Options) { o.Transport = ft })
	_, err := c.GetPayment(context.Background(), "3fa85f64-5717-4562-b3fc-2c963f66afa6")
	var ne *NetworkError
	if errors.As(err, &ne) {
		t.Fatalf("err = %v, a network failure; want the state failure", err)
	}
	var coded interface{ ExitCode() int }
	if !errors.As(err, &coded) || coded.ExitCode() != 12 {
		t.Fatalf("err = %v (%T), want exit code 12", err, err)
	}
	if ft.calls != 1 || len(sl.asked) != 0 {
		t.Fatalf("sent %d times with %d waits, want once and none", ft.calls, len(sl.asked))
	}
}
