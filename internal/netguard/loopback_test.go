package netguard

import (
	"context"
	"errors"
	"net"
	"testing"
)

func TestLoopbackLiteralAndCandidate(t *testing.T) {
	for host, want := range map[string][2]bool{
		"127.0.0.1":        {true, true},
		"127.9.8.7":        {true, true},
		"::1":              {true, true},
		"::ffff:127.0.0.1": {true, true},
		"localhost":        {false, true},
		"LocalHost":        {false, true},
		"localhost.":       {false, false},
		"10.0.0.1":         {false, false},
		"::":               {false, false},
		"0.0.0.0":          {false, false},
		"bnpl-sandbox":     {false, false},
		"127.0.0.1.nip.io": {false, false},
		"":                 {false, false},
	} {
		if got := [2]bool{LoopbackLiteral(host), LoopbackCandidate(host)}; got != want {
			t.Errorf("%q: literal, candidate = %v, want %v", host, got, want)
		}
	}
}

// DialLoopback dials a loopback address and refuses any other without a
// connection attempt.
func TestDialLoopback(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dial := DialLoopback(nil)
	c, err := dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatalf("dialling %s: %v", l.Addr(), err)
	}
	c.Close()
	var nl *NotLoopbackError
	for _, addr := range []string{"10.0.0.1:80", "[2001:db8::1]:80", "0.0.0.0:80"} {
		if _, err := dial(context.Background(), "tcp", addr); !errors.As(err, &nl) {
			t.Errorf("dialling %s: %v, want a NotLoopbackError", addr, err)
		}
	}
	if _, err := ResolveLoopback(context.Background(), "10.1.2.3"); !errors.As(err, &nl) || nl.Error() == "" {
		t.Errorf("ResolveLoopback(10.1.2.3) = %v", err)
	}
}
