package listen

import (
	"net"
	"testing"
)

func TestLeftover(t *testing.T) {
	alive, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer alive.Close()
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	goneAddr := gone.Addr().String()
	gone.Close()
	own := "127.0.0.1:1"
	for _, c := range []struct {
		url  string
		want bool
	}{
		{"http://" + goneAddr + "/listen-0a1b2c3d/payments", true},
		{"http://" + goneAddr + "/listen-0a1b2c3d/disputes", true},
		{"http://" + own + "/listen-0a1b2c3d/payments", true}, // this listener's own port
		{"http://" + alive.Addr().String() + "/listen-0a1b2c3d/payments", false},
		{"http://" + goneAddr + "/shop/payments", false},              // not a listen's path
		{"http://" + goneAddr + "/listen-0a1b2c3d/payments/x", false}, // nor this
		{"https://" + goneAddr + "/listen-0a1b2c3d/payments", false},  // listen registers http
		{"http://shop.example:8080/listen-0a1b2c3d/payments", false},  // not loopback
		{"http://10.0.0.1:8080/listen-0a1b2c3d/payments", false},
		{"::not a url", false},
	} {
		if got := leftover(c.url, own); got != c.want {
			t.Errorf("leftover(%q) = %v, want %v", c.url, got, c.want)
		}
	}
}
