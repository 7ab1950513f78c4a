// Package httpserve runs the project's own HTTP servers (`bnpl sandbox
// serve`, `listen`, `sandbox record` and `sandbox replay`) with bounds on
// what a client can hold: time to send a request's header and body, time
// a kept-alive connection may sit idle, header size, and how many
// connections are open at once, in all and of one client. The defaults
// are the same for every server.
package httpserve

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Defaults of Limits. A request (header and body) must arrive within
// ReadTimeout; the header alone within ReadHeaderTimeout.
const (
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 30 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
)

// Limits bound a server. Zero fields take the defaults above; MaxConns 0
// means no cap on connections (each server sets its own).
type Limits struct {
	// ReadHeaderTimeout bounds the time to read a request's header.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds the time to read a whole request, body included:
	// a body that trickles in is cut when it runs out.
	ReadTimeout time.Duration
	// WriteTimeout bounds the time from the end of the header to the end
	// of the answer (handling included).
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection that sends nothing.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's header.
	MaxHeaderBytes int
	// MaxConns caps open connections; one over the cap is answered 503
	// at once and closed, so a flood cannot queue ahead of everyone.
	MaxConns int
	// MaxConnsPerClient caps the open connections of one client (a
	// remote IP address; an IPv6 /64, which one host usually holds
	// whole), so that one client holding slow connections cannot take
	// every slot of MaxConns. One over its cap is answered 503 at once
	// and closed. 0: a quarter of MaxConns (ClientShare); -1: no cap per
	// client.
	MaxConnsPerClient int
	// MaxBodies caps the requests that read a body at once (0: no cap).
	// The others wait for a turn before their body is read, holding no
	// memory for it; with the handler's own cap on a body's size this
	// bounds what bodies in flight hold in all.
	MaxBodies int
}

func (l Limits) withDefaults() Limits {
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultReadTimeout
	}
	if l.ReadHeaderTimeout > l.ReadTimeout {
		l.ReadHeaderTimeout = l.ReadTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = DefaultWriteTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	l.MaxConnsPerClient = l.ClientShare()
	return l
}

// ClientShare is the most connections one client holds: MaxConnsPerClient,
// else a quarter of MaxConns (at least 1); 0 for no cap.
func (l Limits) ClientShare() int {
	switch {
	case l.MaxConnsPerClient > 0:
		return l.MaxConnsPerClient
	case l.MaxConnsPerClient < 0 || l.MaxConns <= 0:
		return 0
	}
	return max(l.MaxConns/4, 1)
}

// Server builds an http.Server for h with the limits' timeouts and header
// bound. Serve it on Listener(ln) to apply MaxConns.
func (l Limits) Server(h http.Handler) *http.Server {
	l = l.withDefaults()
	if l.MaxBodies > 0 {
		h = bodyGate(h, l.MaxBodies)
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		WriteTimeout:      l.WriteTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    l.MaxHeaderBytes,
	}
}

// Listener wraps ln so that at most MaxConns connections are open at
// once, ClientShare of them of one client, and each answer goes out in
// one write (answerConn).
func (l Limits) Listener(ln net.Listener) net.Listener {
	l.MaxConnsPerClient = l.ClientShare()
	if l.MaxConns <= 0 && l.MaxConnsPerClient <= 0 {
		return answerListener{ln}
	}
	cl := &capListener{Listener: ln, perClient: l.MaxConnsPerClient, clients: map[netip.Prefix]int{}}
	if l.MaxConns > 0 {
		cl.slots = make(chan struct{}, l.MaxConns)
	}
	return cl
}

// Gate lets at most n holders in at once. A handler that checks a request
// before reading its body (as listen checks its header) takes a turn after
// the check, so that refused requests never wait.
type Gate struct{ turns chan struct{} }

// NewGate makes a Gate of n turns.
func NewGate(n int) *Gate { return &Gate{turns: make(chan struct{}, n)} }

// Enter waits for a turn; false when r's context ended first (the client
// went away, or the server is shutting down). Leave gives the turn back.
func (g *Gate) Enter(r *http.Request) bool {
	select {
	case g.turns <- struct{}{}:
		return true
	case <-r.Context().Done():
		return false
	}
}

// Leave gives back a turn taken by Enter.
func (g *Gate) Leave() { <-g.turns }

// InUse is how many turns are taken now.
func (g *Gate) InUse() int { return len(g.turns) }

// HasBody tells whether r carries a body to read.
func HasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

// bodyGate lets at most n requests with a body into h at once.
func bodyGate(h http.Handler, n int) http.Handler {
	g := NewGate(n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !HasBody(r) {
			h.ServeHTTP(w, r)
			return
		}
		if !g.Enter(r) {
			return
		}
		defer g.Leave()
		h.ServeHTTP(w, r)
	})
}

// busyAnswer is what a connection over the cap receives before it is closed.
var busyAnswer = func() []byte {
	const body = "too many open connections; try again in a while\n"
	return []byte(fmt.Sprintf("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"+
		"Connection: close\r\nRetry-After: 1\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
}()

type capListener struct {
	net.Listener
	slots chan struct{} // nil: no cap on all connections

	perClient int // 0: no cap per client
	mu        sync.Mutex
	clients   map[netip.Prefix]int
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		client := clientOf(c.RemoteAddr())
		if !l.enter(client) {
			// Over a cap: answer without reading anything, in the
			// background so that Accept goes on.
			go refuse(c)
			continue
		}
		return &slotConn{Conn: newAnswerConn(c), release: func() { l.leave(client) }}, nil
	}
}

// enter takes a slot for a connection of client, if both caps allow.
func (l *capListener) enter(client netip.Prefix) bool {
	if l.perClient > 0 {
		l.mu.Lock()
		if l.clients[client] >= l.perClient {
			l.mu.Unlock()
			return false
		}
		l.clients[client]++
		l.mu.Unlock()
	}
	if l.slots == nil {
		return true
	}
	select {
	case l.slots <- struct{}{}:
		return true
	default:
		l.leaveClient(client)
		return false
	}
}

// leave gives back the slots of a connection of client.
func (l *capListener) leave(client netip.Prefix) {
	if l.slots != nil {
		<-l.slots
	}
	l.leaveClient(client)
}

func (l *capListener) leaveClient(client netip.Prefix) {
	if l.perClient <= 0 {
		return
	}
	l.mu.Lock()
	if l.clients[client]--; l.clients[client] <= 0 {
		delete(l.clients, client)
	}
	l.mu.Unlock()
}

// clientOf is the client a connection counts against: its IPv4 address,
// or the /64 of its IPv6 address. An address that is not IP (a Unix
// socket) is one client.
func clientOf(a net.Addr) netip.Prefix {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Prefix{}
	}
	ip := ap.Addr().WithZone("").Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p
	}
	return netip.PrefixFrom(ip, 32)
}

func refuse(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Write(busyAnswer)
	_ = c.Close()
}

// slotConn gives its slot back when closed, once. The slot is given back
// before the connection is closed, so that a peer which has seen the close
// can count on the slot being free.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
