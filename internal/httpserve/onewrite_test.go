package httpserve

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// holdLong makes the connections served from now on hold a full buffer
// for an hour rather than holdAtMost: an answer that arrives then was
// sent at its end, not by the timer.
func holdLong(t *testing.T) {
	was := atomic.SwapInt64(&holdAtMost, int64(time.Hour))
	t.Cleanup(func() { atomic.StoreInt64(&holdAtMost, was) })
}

// writeCounter counts the writes made to the connections it accepted,
// beneath what the server wraps them in.
type writeCounter struct {
	net.Listener
	writes atomic.Int64
}

func (l *writeCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countedConn{Conn: c, writes: &l.writes}, nil
}

type countedConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countedConn) Write(p []byte) (int, error) {
	c.writes.Add(1) // before the bytes can reach the client
	return c.Conn.Write(p)
}

// serveCounted runs h under l on a loopback port, counting writes.
func serveCounted(t *testing.T, l Limits, h http.Handler) (string, *writeCounter) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wc := &writeCounter{Listener: ln}
	srv := l.Server(h)
	go srv.Serve(l.Listener(wc))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), wc
}

// sized answers a body of the length its path asks for, in one write,
// its length said up front, as the sandbox answers.
var sized = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Path[1:])
	w.Header().Set("Content-Length", strconv.Itoa(n))
	w.Write(bytes.Repeat([]byte{'x'}, n))
})

// get sends GET /n on the kept-alive conn and reads the answer whole.
func get(t *testing.T, conn net.Conn, br *bufio.Reader, n int, close bool) {
	t.Helper()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	hdr := ""
	if close {
		hdr = "Connection: close\r\n"
	}
	fmt.Fprintf(conn, "GET /%d HTTP/1.1\r\nHost: x\r\n%s\r\n", n, hdr)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("answer of %d bytes: %v", n, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(b) != n {
		t.Fatalf("answer of %d bytes: read %d, %v", n, len(b), err)
	}
}

// Every answer goes out in one write, however long, whether or not the
// answer fills net/http's buffer of the connection exactly, and on a
// connection with caps as on one without.
func TestEachAnswerGoesOutInOneWrite(t *testing.T) {
	holdLong(t)
	sizes := []int{0, 10, 2000, 3000, 5000, 6500, 9000, 20000, 50000}
	// Around one and two full buffers: one of these ends the answer
	// exactly at a buffer's end, whatever the header's length.
	for n := connBuffer - 200; n <= connBuffer+20; n++ {
		sizes = append(sizes, n)
	}
	for n := 2*connBuffer - 200; n <= 2*connBuffer+20; n++ {
		sizes = append(sizes, n)
	}
	for _, l := range []Limits{{}, {MaxConns: 8}} {
		addr, wc := serveCounted(t, l, sized)
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		for _, n := range sizes {
			before := wc.writes.Load()
			get(t, conn, br, n, false)
			if got := wc.writes.Load() - before; got != 1 {
				t.Errorf("MaxConns %d: an answer of %d bytes went out in %d writes, want 1", l.MaxConns, n, got)
			}
		}
		conn.Close()
	}
}

// dialGET opens a connection to addr and sends GET / on it.
func dialGET(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	return conn
}

// An answer that ends a connection is sent whole before it closes, even
// when it ends at a full buffer's end.
func TestTheLastAnswerOfAConnectionIsSent(t *testing.T) {
	holdLong(t)
	addr, _ := serveCounted(t, Limits{MaxConns: 8}, sized)
	for n := connBuffer - 200; n <= connBuffer+20; n++ {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		get(t, conn, br, n, true)
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("after an answer of %d bytes with Connection: close: %v, want the connection closed", n, err)
		}
		conn.Close()
	}
}

// A handler that flushes a full buffer and waits for the client to have
// it (a stream) is not kept waiting: what is held goes out after
// holdAtMost.
func TestAFlushedFullBufferIsNotHeldForLong(t *testing.T) {
	got := make(chan struct{})
	addr, _ := serveCounted(t, Limits{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(2*connBuffer))
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush() // the header, on its own
		w.Write(bytes.Repeat([]byte{'a'}, connBuffer))
		w.(http.Flusher).Flush() // a full buffer
		select {
		case <-got:
		case <-r.Context().Done():
			return
		}
		w.Write(bytes.Repeat([]byte{'b'}, connBuffer))
	}))
	conn := dialGET(t, addr)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, connBuffer)
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatalf("the flushed part never came: %v", err)
	}
	close(got)
	rest, err := io.ReadAll(resp.Body)
	if err != nil || len(rest) != connBuffer || rest[0] != 'b' {
		t.Fatalf("the rest: %d bytes, %v", len(rest), err)
	}
}

// A handler that takes the connection over, writes a full buffer's worth
// to it and closes it has all of it sent before the close.
func TestAHijackedConnectionSendsAllBeforeClosing(t *testing.T) {
	holdLong(t)
	addr, _ := serveCounted(t, Limits{MaxConns: 8}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Write(bytes.Repeat([]byte{'h'}, connBuffer))
		conn.Close()
	}))
	conn := dialGET(t, addr)
	got, err := io.ReadAll(conn)
	if err != nil || len(got) != connBuffer {
		t.Fatalf("read %d bytes before the close, %v; want %d", len(got), err, connBuffer)
	}
}
