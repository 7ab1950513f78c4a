package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// While the seed file loads (Prepare), the sandbox answers every request
// 503 at once, the health check saying it is starting; once ready, 200.
func TestServeAnswers503WhileSeeding(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ae, sa := freeAddr(t), freeAddr(t)
	preparing, release := make(chan struct{}), make(chan struct{})
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ServeOptions{AEAddr: ae, SAAddr: sa, Instance: "seeding-run",
			Prepare: func(*Sandbox) error { close(preparing); <-release; return nil },
			Ready:   func(Listening) error { close(ready); return nil }}, io.Discard)
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-preparing:
	case err := <-done:
		done <- err
		t.Fatalf("serve ended: %v", err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + ae + "/_sandbox/health")
	if err != nil {
		t.Fatalf("health while seeding: %v", err)
	}
	var h struct{ Service, Status, Instance, Error string }
	err = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable || h.Service != "bnpl-sandbox" || h.Status != "unavailable" ||
		h.Instance != "seeding-run" || !strings.Contains(h.Error, "starting") {
		t.Fatalf("health while seeding: %d %+v (%v), want 503 unavailable, starting", resp.StatusCode, h, err)
	}
	resp, err = client.Get("http://" + sa + "/api/v2/payments")
	if err != nil {
		t.Fatalf("API while seeding: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || !bytes.Contains(body, []byte(`"status":"error"`)) {
		t.Fatalf("API while seeding: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	close(release)
	<-ready
	resp, err = client.Get("http://" + ae + "/_sandbox/health")
	if err != nil {
		t.Fatalf("health once seeded: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("health once ready: %d", resp.StatusCode)
	}
}

// A Prepare that fails stops Serve and frees the ports.
func TestServePrepareFailsClosesListeners(t *testing.T) {
	ae, sa := freeAddr(t), freeAddr(t)
	err := Serve(context.Background(), ServeOptions{AEAddr: ae, SAAddr: sa,
		Prepare: func(*Sandbox) error { return io.ErrUnexpectedEOF }}, io.Discard)
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("Serve: %v", err)
	}
	for _, addr := range []string{ae, sa} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s still held: %v", addr, err)
		}
		l.Close()
	}
}

// On every address (a container), the banner says how the host reaches
// the sandbox (-p) and that links follow the Host without a public URL.
func TestBannerWildcard(t *testing.T) {
	where := Listening{Addrs: map[string]string{"ae": "0.0.0.0:8700", "sa": "0.0.0.0:8701"},
		LocalURLs: map[string]string{"ae": "http://127.0.0.1:8700", "sa": "http://127.0.0.1:8701"}, Wildcard: []string{"ae", "sa"}}
	var out bytes.Buffer
	printWildcard(&out, ServeOptions{}, where)
	want := "  listening on      0.0.0.0:8700  0.0.0.0:8701 (every address)\n" +
		"  from here         http://127.0.0.1:8700  http://127.0.0.1:8701\n" +
		"  from the host     http://localhost:HOSTPORT for -p 127.0.0.1:HOSTPORT:8700 (ae), http://localhost:HOSTPORT for -p 127.0.0.1:HOSTPORT:8701 (sa), in a container\n" +
		"  links             follow each request's Host (ae, sa): no public URL set (--public-url, env BNPL_SANDBOX_PUBLIC_URL)\n"
	if out.String() != want {
		t.Errorf("banner:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	printWildcard(&out, ServeOptions{Options: Options{PublicURLs: map[string]string{"ae": "http://a:1", "sa": "http://a:2"}}}, where)
	if strings.Contains(out.String(), "links") {
		t.Errorf("with public URLs: %s", out.String())
	}
	out.Reset()
	printWildcard(&out, ServeOptions{}, Listening{})
	if out.Len() != 0 {
		t.Errorf("loopback: %q", out.String())
	}
}

// A sandbox loading a 4,000-payment seed file (largeSeed: 400 under the
// race detector) answers its health check 503 at once, not after the
// seed, and serves them once they are in.
func TestServeLargeSeedAnswers503(t *testing.T) {
	var doc strings.Builder
	doc.WriteString(`{"payments": [`)
	for i := range largeSeed {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"id": "5eed0000-0000-4000-8000-%012d", "status": "CREATED", "created_at": "now-10m", "amount": "100.00", "order": {"reference_id": "ORD-%d"}, "buyer": {"name": "A B", "email": "a@example.com", "phone": "+971500000001"}}`, i, i)
	}
	doc.WriteString("]}")
	ctx, cancel := context.WithCancel(context.Background())
	ae, sa := freeAddr(t), freeAddr(t)
	seeding, asked, ready := make(chan struct{}), make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ServeOptions{AEAddr: ae, SAAddr: sa, Prepare: func(sb *Sandbox) error {
			close(seeding)
			fx, err := sb.SeedFixture(ctx, "big.json", []byte(doc.String()), 0)
			if err == nil && len(fx.Payments) != largeSeed {
				err = fmt.Errorf("seeded %d payments", len(fx.Payments))
			}
			<-asked // the seed is over only once the client has its answer
			return err
		}, Ready: func(Listening) error { close(ready); return nil }}, io.Discard)
	}()
	t.Cleanup(func() { cancel(); <-done })
	<-seeding
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + ae + "/_sandbox/health")
	close(asked)
	if err != nil {
		t.Fatalf("health while seeding %d payments: %v", largeSeed, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("health while seeding: %d, want 503", resp.StatusCode)
	}
	select {
	case <-ready:
	case err := <-done:
		done <- err // for the clean-up
		t.Fatalf("the %d-payment seed failed: %v", largeSeed, err)
	}
	if !probeClosed(ae) {
		t.Fatal("the sandbox does not serve once seeded")
	}
}
