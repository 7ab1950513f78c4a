package sandbox

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/httpserve"
)

// serveLimited runs Serve with lim and answers the ae address once it
// answers.
func serveLimited(t *testing.T, lim httpserve.Limits) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ae, sa := freeAddr(t), freeAddr(t)
	go func() { done <- Serve(ctx, ServeOptions{AEAddr: ae, SAAddr: sa, Limits: lim}, io.Discard) }()
	t.Cleanup(func() { cancel(); <-done })
	for range 200 {
		c, err := net.Dial("tcp", ae)
		if err == nil {
			c.Close()
			return ae
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("sandbox did not start")
	return ""
}

// A checkout whose body trickles in is cut at the read timeout: no
// payment is created and the connection is closed.
func TestServeCutsSlowBody(t *testing.T) {
	addr := serveLimited(t, httpserve.Limits{ReadTimeout: 300 * time.Millisecond})
	body := mustJSON(t, checkoutBody("ae-sandbox", "AED", "100.00"))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second)) // a hang guard only
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
	addr := serveLimited(t, httpserve.Limits{MaxConns: 2})
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		io.WriteString(c, "GET /_sandbox/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("held connection: %v %v", res, err)
		}
		held = append(held, c)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	io.WriteString(c, "GET /_sandbox/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || res.StatusCode != 503 {
		t.Fatalf("over the cap: %v %v", res, err)
	}
	_ = held
}
