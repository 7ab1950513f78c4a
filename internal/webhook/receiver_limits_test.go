package webhook

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/httpserve"
	"github.com/bnpl-cli/bnpl/internal/httpserve/httpservetest"
)

// serveReceiver runs r on a loopback port until the test ends.
func serveReceiver(t *testing.T, r *Receiver) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// Without the header, a delivery is answered 401 before its body is read:
// the body here never comes, and the server's read timeout is far longer
// than the hang guard, so only an answer that does not wait passes.
func TestReceiver401BeforeBody(t *testing.T) {
	var rejected atomic.Int32
	r := &Receiver{HeaderTitle: "X-Hook", HeaderValue: hookSecret,
		Limits:   httpserve.Limits{ReadTimeout: time.Hour, ReadHeaderTimeout: time.Hour},
		OnReject: func(Rejection) { rejected.Add(1) }}
	addr := serveReceiver(t, r)
	for _, hdr := range []string{"", "X-Hook: wrong\r\n"} {
		c := httpservetest.Dial(t, addr)
		io.WriteString(c, "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n"+hdr+"\r\n{")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("header %q: %v", hdr, err)
		}
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 401 || strings.Contains(string(body), hookSecret) {
			t.Fatalf("header %q: %d %s", hdr, res.StatusCode, body)
		}
	}
	if rejected.Load() != 2 {
		t.Fatalf("%d rejections reported, want 2", rejected.Load())
	}
}

// A declared body over the cap is refused before it is read.
func TestReceiverTooLargeBeforeBody(t *testing.T) {
	addr := serveReceiver(t, &Receiver{Limits: httpserve.Limits{ReadTimeout: time.Hour}})
	c := httpservetest.Dial(t, addr)
	io.WriteString(c, "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n{")
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 413 {
		t.Fatalf("status %d, want 413", res.StatusCode)
	}
}

// With the header right, a body that trickles in is cut at the read
// timeout, and nothing is reported as received.
func TestReceiverSlowBodyCut(t *testing.T) {
	var got atomic.Int32
	r := &Receiver{HeaderTitle: "X-Hook", HeaderValue: hookSecret,
		Limits:         httpserve.Limits{ReadTimeout: 300 * time.Millisecond},
		OnNotification: func(Notification) { got.Add(1) }}
	addr := serveReceiver(t, r)
	c := httpservetest.Dial(t, addr)
	io.WriteString(c, "POST /hook HTTP/1.1\r\nHost: x\r\nX-Hook: "+hookSecret+"\r\nContent-Length: "+
		strconv.Itoa(len(paymentBody))+"\r\n\r\n")
	cut := false
	for i := 0; i < len(paymentBody); i++ {
		if _, err := c.Write([]byte{paymentBody[i]}); err != nil {
			cut = true
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
	if !cut {
		// The whole body went out before the server stopped reading; the
		// answer must still be a refusal, not a notification.
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil && res.StatusCode == 200 {
			t.Fatal("a body trickled over 30x the read timeout was accepted")
		}
	}
	if got.Load() != 0 {
		t.Fatal("a trickled body was reported as a notification")
	}
}

// The default limits apply when none are set.
func TestReceiverDefaultLimits(t *testing.T) {
	if DefaultLimits.MaxConns <= 0 || DefaultLimits.MaxBodies <= 0 {
		t.Fatalf("no default caps: %+v", DefaultLimits)
	}
}

// A sender with the right header holding the only body turn does not make
// a sender without it wait: the 401 comes before any turn is taken.
func TestReceiverRefusesWithoutWaitingForATurn(t *testing.T) {
	var got atomic.Int32
	r := &Receiver{HeaderTitle: "X-Hook", HeaderValue: hookSecret,
		Limits:         httpserve.Limits{ReadTimeout: time.Hour, ReadHeaderTimeout: time.Hour, MaxBodies: 1},
		OnNotification: func(Notification) { got.Add(1) }}
	r.init()
	addr := serveReceiver(t, r)
	holder := httpservetest.Dial(t, addr)
	io.WriteString(holder, "POST /hook HTTP/1.1\r\nHost: x\r\nX-Hook: "+hookSecret+"\r\nContent-Length: "+
		strconv.Itoa(len(paymentBody))+"\r\n\r\n"+paymentBody[:1])
	for i := 0; r.gate.InUse() != 1; i++ {
		if i > 2000 {
			t.Fatal("the first delivery never took the body turn")
		}
		time.Sleep(5 * time.Millisecond)
	}
	bad := httpservetest.Dial(t, addr)
	io.WriteString(bad, "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
	res, err := http.ReadResponse(bufio.NewReader(bad), nil)
	if err != nil || res.StatusCode != 401 {
		t.Fatalf("without the header: %v %v", res, err)
	}
	// The holder finishes and is received.
	io.WriteString(holder, paymentBody[1:])
	res, err = http.ReadResponse(bufio.NewReader(holder), nil)
	if err != nil || res.StatusCode != 200 || got.Load() != 1 {
		t.Fatalf("the holder: %v %v, %d received", res, err, got.Load())
	}
}
