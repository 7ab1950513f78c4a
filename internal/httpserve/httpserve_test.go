package httpserve

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/httpserve/httpservetest"
)

// serve runs h under l on a loopback port and answers its address.
func serve(t *testing.T, l Limits, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := l.Server(h)
	go srv.Serve(l.Listener(ln))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func readAll(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read: "+err.Error(), http.StatusBadRequest)
			return
		}
		if h != nil {
			h.ServeHTTP(w, r)
			return
		}
		io.WriteString(w, "got "+string(b))
	})
}

// A body that trickles in is cut when ReadTimeout runs out: the server
// stops reading and closes the connection before the body is complete.
func TestSlowBodyIsCut(t *testing.T) {
	var finished atomic.Bool
	addr := serve(t, Limits{ReadTimeout: 300 * time.Millisecond}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		if err == nil {
			finished.Store(true)
		}
		w.WriteHeader(http.StatusBadRequest)
	}))
	c := httpservetest.Dial(t, addr)
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
	sent := 0
	for ; sent < 100; sent++ {
		if _, err := c.Write([]byte{'a'}); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
		// Once the server has given up, reading answers EOF or an error.
		_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
		one := make([]byte, 1)
		if _, err := c.Read(one); err != nil && !isTimeout(err) {
			break
		}
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	}
	if sent >= 100 {
		t.Fatal("the server read a trickling body to its end")
	}
	if finished.Load() {
		t.Fatal("the handler saw the whole body")
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// A kept-alive connection that sends nothing is closed after IdleTimeout.
func TestIdleConnectionClosed(t *testing.T) {
	addr := serve(t, Limits{IdleTimeout: 200 * time.Millisecond}, readAll(nil))
	c := httpservetest.Dial(t, addr)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	// Then nothing: the server closes the connection (EOF), rather than
	// the 20s guard firing.
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle connection: %v, want EOF", err)
	}
}

// A header that never ends is cut too.
func TestSlowHeaderIsCut(t *testing.T) {
	addr := serve(t, Limits{ReadHeaderTimeout: 200 * time.Millisecond}, readAll(nil))
	c := httpservetest.Dial(t, addr)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n")
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("slow header: %v, want the server to close", err)
	}
}

// Connections over MaxConns are answered 503 at once; a slot freed is
// taken again.
func TestMaxConns(t *testing.T) {
	addr := serve(t, Limits{MaxConns: 3, MaxConnsPerClient: -1}, readAll(nil))
	held := make([]net.Conn, 3)
	for i := range held {
		held[i] = httpservetest.Dial(t, addr)
		// A full request each, so that the connection is surely accepted.
		io.WriteString(held[i], "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(held[i]), nil)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("conn %d: %v %v", i, res, err)
		}
	}
	over := httpservetest.Dial(t, addr)
	io.WriteString(over, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	res, err := http.ReadResponse(bufio.NewReader(over), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 503 || !strings.Contains(string(body), "too many open connections") {
		t.Fatalf("over the cap: %d %q", res.StatusCode, body)
	}
	held[0].Close()
	for range 200 {
		c := httpservetest.Dial(t, addr)
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err == nil && res.StatusCode == 200 {
			return
		}
		time.Sleep(10 * time.Millisecond) // the server notices the close
	}
	t.Fatal("a freed slot was never given to a new connection")
}

// At most MaxBodies requests with a body run at once.
func TestMaxBodies(t *testing.T) {
	var mu sync.Mutex
	in, most := 0, 0
	release := make(chan struct{})
	addr := serve(t, Limits{MaxBodies: 2}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		in++
		most = max(most, in)
		mu.Unlock()
		<-release
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		in--
		mu.Unlock()
	}))
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Post("http://"+addr+"/", "text/plain", strings.NewReader("body"))
			if err == nil {
				res.Body.Close()
			}
		}()
	}
	// Let every request arrive, then let them through one by one.
	time.Sleep(200 * time.Millisecond)
	close(release)
	wg.Wait()
	if most > 2 {
		t.Fatalf("%d bodies at once, want at most 2", most)
	}
	if most == 0 {
		t.Fatal("no request reached the handler")
	}
}

func TestDefaults(t *testing.T) {
	srv := Limits{}.Server(http.NotFoundHandler())
	if srv.ReadTimeout != DefaultReadTimeout || srv.IdleTimeout != DefaultIdleTimeout ||
		srv.ReadHeaderTimeout != DefaultReadHeaderTimeout || srv.MaxHeaderBytes != DefaultMaxHeaderBytes {
		t.Fatalf("defaults not applied: %+v", srv)
	}
}

// One client holding slow connections (a header begun, never finished)
// gets at most MaxConnsPerClient of them, the rest answered 503 at once;
// another client is still served.
func TestMaxConnsPerClient(t *testing.T) {
	heldBy(t, Limits{MaxConns: 10, MaxConnsPerClient: 3, ReadHeaderTimeout: 20 * time.Second})
}

// A server that names no cap per client (listen, record, replay) gets
// the one sandbox serve has: a quarter of its connections; and the short
// header time-out.
func TestEveryServerCapsEachClient(t *testing.T) {
	l := Limits{MaxConns: 12}
	if l.ClientShare() != 3 || (Limits{MaxConns: 12, MaxConnsPerClient: -1}).ClientShare() != 0 || (Limits{}).ClientShare() != 0 {
		t.Fatalf("shares: %d", l.ClientShare())
	}
	if srv := l.Server(http.NotFoundHandler()); srv.ReadHeaderTimeout != 5*time.Second {
		t.Fatalf("header time-out %v", srv.ReadHeaderTimeout)
	}
	l.ReadHeaderTimeout = 20 * time.Second
	heldBy(t, l)
}

// heldBy checks that one client holds 3 slow connections of l's, no more.
func heldBy(t *testing.T, l Limits) {
	addr := serve(t, l, readAll(nil))
	// Connections are accepted in the order they were made: the first
	// three are held, the other nine refused.
	conns := make([]net.Conn, 12)
	for i := range conns {
		conns[i] = httpservetest.DialFrom(t, "127.0.0.2", addr)
		io.WriteString(conns[i], "GET / HTTP/1.1\r\nHost: x\r\n")
	}
	for i, c := range conns[3:] {
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || res.StatusCode != 503 {
			t.Fatalf("slow connection %d over the client's cap: %v %v, want 503", i+4, res, err)
		}
	}
	// Everything over the client's cap was refused, yet the server has
	// room: another client is served...
	c := httpservetest.DialFrom(t, "127.0.0.1", addr)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("another client: %v %v, want 200", res, err)
	}
	// ...and the three held are the client's own, served when they end
	// their header.
	for i, c := range conns[:3] {
		io.WriteString(c, "\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("held connection %d: %v %v, want 200", i+1, res, err)
		}
	}
}

func TestClientOf(t *testing.T) {
	for addr, want := range map[string]string{
		"10.1.2.3:80":               "10.1.2.3/32",
		"[::ffff:10.1.2.3]:80":      "10.1.2.3/32",
		"[2001:db8:1:2:3:4:5:6]:80": "2001:db8:1:2::/64",
		"[fe80::1%eth0]:80":         "fe80::/64",
	} {
		a, _ := net.ResolveTCPAddr("tcp", addr)
		if got := clientOf(a).String(); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}
