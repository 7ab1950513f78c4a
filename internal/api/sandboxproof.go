package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// A sandbox's key over plain http. The sandbox's built-in keys are public
// (bnpl sandbox serve prints them; they are in its help) and work nowhere
// but a bnpl sandbox. A CI job reaches a sandbox container by its service
// name, http://bnpl-sandbox:8700: not loopback, and without TLS. Such a key
// may go there once the host has answered GET /_sandbox/health, asked
// without the key, as a bnpl sandbox. Whatever a host answers, no other key
// is ever sent over plain http to a host that is not loopback: New refuses
// it before anything is sent, and the proof below is asked only for a key
// the caller marked as the sandbox's (Options.SandboxKey).

const (
	// sandboxProofTimeout bounds the one request of a proof.
	sandboxProofTimeout = 5 * time.Second
	// maxProofBody bounds the answer read.
	maxProofBody = 64 << 10
)

// sandboxKeyShape is the form of the sandbox's built-in keys
// (sk_test_ae_sandbox, sk_sa_sandbox): a caller that marked another key as
// the sandbox's by mistake still never sends it over plain http.
func sandboxKeyShape(key string) bool {
	return strings.HasPrefix(key, "sk_") && strings.HasSuffix(key, "_sandbox") && len(key) <= 32
}

// sandboxProof asks once per client, before the first request, whether
// the base URL's host is a bnpl sandbox; a proof that failed is asked again
// by the next request (the sandbox may have come up since).
type sandboxProof struct {
	mu     sync.Mutex
	proven bool
	host   string
	url    string
	client *http.Client
}

func newSandboxProof(base *url.URL, transport http.RoundTripper) *sandboxProof {
	health := url.URL{Scheme: base.Scheme, Host: base.Host, Path: strings.TrimRight(base.Path, "/") + wire.SandboxHealthPath}
	return &sandboxProof{
		host: base.Host,
		url:  health.String(),
		client: &http.Client{
			Transport: transport,
			Timeout:   sandboxProofTimeout,
			// An answer is the host's own or nothing: a redirect could
			// only lend the proof of another host.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// check returns nil once the host has answered as a bnpl sandbox.
func (p *sandboxProof) check(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proven {
		return nil
	}
	if err := p.ask(ctx); err != nil {
		return err
	}
	p.proven = true
	return nil
}

// ask sends GET /_sandbox/health with no key and judges the answer: a JSON
// body naming wire.SandboxService, with 200 (healthy) or 503 (a sandbox
// whose state cannot be read, which then answers its own errors).
func (p *sandboxProof) ask(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return &SandboxProofError{Host: p.host, Reason: "no answer: " + shortCause(err), network: true}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProofBody))
	if err != nil {
		return &SandboxProofError{Host: p.host, Reason: "the answer was cut: " + shortCause(err), network: true}
	}
	var h struct {
		Service string `json:"service"`
		Error   string `json:"error"`
	}
	decoded := json.Unmarshal(body, &h) == nil
	switch {
	case (resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusServiceUnavailable) && decoded && h.Service == wire.SandboxService:
		return nil
	case resp.StatusCode == http.StatusForbidden && decoded && h.Error != "":
		// The sandbox's Host guard: a name it was not told to answer.
		return &SandboxProofError{Host: p.host, Reason: "it refused GET " + wire.SandboxHealthPath + ": " + h.Error, hostRefused: true}
	}
	return &SandboxProofError{Host: p.host, Reason: fmt.Sprintf("GET %s answered %s, not as a bnpl sandbox", wire.SandboxHealthPath, resp.Status)}
}

// shortCause is a transport error without the method and URL url.Error
// repeats.
func shortCause(err error) string {
	if ue, ok := err.(*url.Error); ok {
		err = ue.Err
	}
	return err.Error()
}

// SandboxProofError is a sandbox key kept from a host over plain http
// because the host did not answer as a bnpl sandbox. Nothing was sent with
// the key.
type SandboxProofError struct {
	Host   string
	Reason string
	// network: nothing answered (exit 10); hostRefused: a sandbox that
	// does not answer this host name.
	network, hostRefused bool
}

func (e *SandboxProofError) Error() string {
	return fmt.Sprintf("refusing to send the sandbox key over plain http to %s until it answers as a bnpl sandbox: %s", e.Host, e.Reason)
}

func (e *SandboxProofError) ExitCode() int {
	if e.network {
		return exitNetwork
	}
	return exitUsage
}

func (e *SandboxProofError) Hint() string {
	switch {
	case e.network:
		return "start the sandbox there first and wait for it (bnpl sandbox wait --sandbox-url http://" + e.Host + ")"
	case e.hostRefused:
		return "serve the sandbox with --allowed-host for this name (env BNPL_SANDBOX_ALLOW_HOST), or reach it by its address"
	}
	return "plain http takes the sandbox's built-in keys only to a bnpl sandbox; for any other service use an https:// base URL"
}
