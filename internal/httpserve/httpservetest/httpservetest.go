// Package httpservetest is what the tests of servers under httpserve's
// limits share (httpserve's own, the sandbox's, the webhook receiver's):
// connections a test holds open, to count against a cap or to send a
// request slowly.
package httpservetest

import (
	"net"
	"testing"
	"time"
)

// Dial opens a connection to addr, closed when the test ends.
func Dial(t testing.TB, addr string) net.Conn {
	t.Helper()
	return DialFrom(t, "", addr)
}

// DialFrom opens a connection to addr from the loopback address from
// (another client, for a cap per client; "" for any), closed when the
// test ends. Its deadline is a guard against a hang, far above every
// limit the tests set: the tests check what happens, never how long it
// took.
func DialFrom(t testing.TB, from, addr string) net.Conn {
	t.Helper()
	var d net.Dialer
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	return c
}
