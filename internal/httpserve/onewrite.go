package httpserve

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// One write per answer. net/http writes a connection through a buffer of
// 4 KiB (connBuffer): an answer longer than that (a payment with its
// captures and refunds, 6 KB after some 40 of them) went out in two
// writes or more, the first when the buffer filled in the middle of the
// handler's write and the last when the answer ended. Each write to a
// socket is a system call, and on loopback the peer's receipt and wake-up
// too, on a machine whose client (a load test, a CI suite) shares the
// processors with the server.
//
// answerConn holds a write of exactly connBuffer bytes (net/http's buffer,
// full) and sends it with what follows, in one write: the rest of the
// answer, which net/http writes when the answer ends. The end of an
// answer sends what is held too (net/http sets the connection's write
// deadline then), and so does closing the connection. A handler that
// flushes a full buffer and then waits (a stream), or one that took the
// connection over (Hijack) and reads, has it sent after holdAtMost at the
// latest.

// connBuffer is the size of net/http's write buffer of a connection.
const connBuffer = 4 << 10

// holdAtMost bounds how long a full buffer waits for the rest, in
// nanoseconds (tests lengthen it; read and written atomically).
var holdAtMost = int64(time.Millisecond)

// answerConn is a served connection that holds a full buffer for the
// write after it.
type answerConn struct {
	net.Conn
	mu      sync.Mutex
	held    []byte      // a full buffer, then room for what follows
	holding atomic.Bool // held holds a buffer not yet sent
	timer   *time.Timer // sends what is held after hold
	hold    time.Duration
}

func (c *answerConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.holding.Load() {
		if len(p) != connBuffer {
			return c.Conn.Write(p)
		}
		if c.timer == nil {
			c.timer = time.AfterFunc(c.hold, c.send)
		} else {
			c.timer.Reset(c.hold)
		}
		c.held = append(c.held[:0], p...)
		c.holding.Store(true)
		return len(p), nil
	}
	c.holding.Store(false)
	var n int64
	var err error
	if len(p) <= maxJoined {
		// One buffer, one write: what follows a full buffer is the
		// answer's rest, a few kilobytes.
		c.held = append(c.held, p...)
		var m int
		m, err = c.Conn.Write(c.held)
		n = int64(m)
		c.held = c.held[:0]
		if cap(c.held) > keptHeld {
			c.held = nil // a rare long rest: not kept for every answer after
		}
	} else {
		bufs := net.Buffers{c.held, p}
		n, err = bufs.WriteTo(c.Conn)
	}
	// p's share of what went out: none of it unless all that was held did.
	return int(max(0, n-connBuffer)), err
}

// maxJoined is the most a write after a full buffer is copied behind it
// to go out in one; a longer one goes out beside it (writev).
const maxJoined = 60 << 10

// keptHeld bounds the room a connection keeps for the next answer.
const keptHeld = 16 << 10

// send writes what is held, if anything. An error is the next write's or
// read's to find: the connection is broken for them too.
func (c *answerConn) send() {
	if !c.holding.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holding.Swap(false) {
		_, _ = c.Conn.Write(c.held)
	}
}

// SetWriteDeadline sends what is held first: net/http sets the write
// deadline of a connection as soon as an answer has ended. (Not a read:
// net/http reads in the background while a handler answers.)
func (c *answerConn) SetWriteDeadline(t time.Time) error {
	c.send()
	return c.Conn.SetWriteDeadline(t)
}

// CloseWrite sends what is held and shuts the sending side, as net/http
// does to a TCP connection it closes after an answer.
func (c *answerConn) CloseWrite() error {
	c.send()
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *answerConn) Close() error {
	c.send()
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	return c.Conn.Close()
}

// answerListener serves each connection it accepts as an answerConn.
type answerListener struct{ net.Listener }

func (l answerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return newAnswerConn(c), nil
}

func newAnswerConn(c net.Conn) *answerConn {
	return &answerConn{Conn: c, hold: time.Duration(atomic.LoadInt64(&holdAtMost))}
}
