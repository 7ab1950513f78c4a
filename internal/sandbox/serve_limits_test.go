package sandbox

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/httpserve"
	"github.com/bnpl-cli/bnpl/internal/httpserve/httpservetest"
)

// serveLimited runs Serve with lim and answers the ae address once it
// answers.
func serveLimited(t *testing.T, lim httpserve.Limits) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ae, sa := freeAddr(t), freeAddr(t)
	banner := &firstWrite{seen: make(chan struct{})}
	go func() { done <- Serve(ctx, ServeOptions{AEAddr: ae, SAAddr: sa, Limits: lim}, banner) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-banner.seen: // the listeners are bound
	case err := <-done:
		t.Fatalf("sandbox did not start: %v", err)
	}
	if !probeClosed(ae) {
		t.Fatal("the sandbox does not answer its clock")
	}
	return ae
}

// firstWrite closes seen at the first write to it and discards the rest.
type firstWrite struct {
	once sync.Once
	seen chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.seen) })
	return len(p), nil
}

// probeClosed asks addr for its clock on a connection the server closes,
// and reads until the close: a server with a connection cap has given the
// probe's slot back by then, so a test that counts connections starts
// from none.
func probeClosed(addr string) bool {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second)) // a hang guard only
	if _, err := io.WriteString(c, "GET /_sandbox/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"); err != nil {
		return false
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	_, err = io.Copy(io.Discard, c) // until the server closes
	return err == nil && res.StatusCode == 200
}

// A checkout whose body trickles in is cut at the read timeout: no
// payment is created and the connection is closed.
func TestServeCutsSlowBody(t *testing.T) {
	addr := serveLimited(t, httpserve.Limits{ReadTimeout: 300 * time.Millisecond})
	body := mustJSON(t, checkoutBody("ae-sandbox", "AED", "100.00"))
	c := httpservetest.Dial(t, addr)
	io.WriteString(c, "POST /api/v2/checkout HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+aeTest+
		"\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n")
	for i := 0; i < len(body); i++ {
		if _, err := c.Write([]byte{body[i]}); err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err == nil && res.StatusCode == 200 {
		t.Fatalf("a body trickled over many read timeouts was accepted")
	}
	// Nothing was stored.
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/v2/payments", nil)
	req.Header.Set("Authorization", "Bearer "+aeTest)
	lres, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(lres.Body)
	lres.Body.Close()
	if !strings.Contains(string(b), `"total_count":0`) && !strings.Contains(string(b), `"results":[]`) {
		t.Fatalf("a payment was created from a cut body: %s", b)
	}
}

// Connections over the cap are answered 503 at once instead of queueing.
func TestServeCapsConnections(t *testing.T) {
	addr := serveLimited(t, httpserve.Limits{MaxConns: 2, MaxConnsPerClient: -1})
	// Each connection stays open until the test ends.
	for range 2 {
		if res, err := getOnConn(t, addr, "/_sandbox/clock"); err != nil || res.StatusCode != 200 {
			t.Fatalf("held connection: %v %v", res, err)
		}
	}
	if res, err := getOnConn(t, addr, "/_sandbox/clock"); err != nil || res.StatusCode != 503 {
		t.Fatalf("over the cap: %v %v", res, err)
	}
}

// getOnConn sends a GET of path on a connection of its own to addr, kept
// open until the test ends, and reads the answer.
func getOnConn(t *testing.T, addr, path string) (*http.Response, error) {
	t.Helper()
	c := httpservetest.Dial(t, addr)
	io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	return http.ReadResponse(bufio.NewReader(c), nil)
}

// One client holding more slow connections (a header begun, never
// finished) than the whole cap cannot shut the sandbox: with the default
// limits it holds at most its share, the rest are answered 503 at once,
// and the health check of another address still answers.
func TestServeSlowClientLeavesRoom(t *testing.T) {
	addr := serveLimited(t, httpserve.Limits{})
	n := DefaultServeLimits.MaxConns + 40
	conns := make([]net.Conn, n)
	for i := range conns {
		c := httpservetest.DialFrom(t, "127.0.0.2", addr)
		io.WriteString(c, "GET /_sandbox/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
		conns[i] = c
	}
	// Accepted in the order made: past the client's share, every one is
	// refused at once.
	for i := DefaultServeLimits.ClientShare(); i < n; i++ {
		res, err := http.ReadResponse(bufio.NewReader(conns[i]), nil)
		if err != nil || res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("slow connection %d: %v %v, want 503", i+1, res, err)
		}
	}
	if res, err := getOnConn(t, addr, "/_sandbox/health"); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the health check while one client holds %d connections: %v %v, want 200", n, res, err)
	}
}
