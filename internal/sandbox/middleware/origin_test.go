package middleware

import "testing"

func TestTrustedHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:8700": true, "127.0.0.1": true, "[::1]:8700": true, "0.0.0.0:8700": true, "192.168.1.5:8700": true,
		"localhost:8700": true, "LocalHost.:8700": true, "x.localhost": true, "pub.example:443": true,
		"": false, "evil.example:8700": false, "localhost.evil.example": false, "127.0.0.1.nip.io:8700": false,
	} {
		if got := TrustedHost(host, "pub.example"); got != want {
			t.Errorf("trustedHost(%q) = %v, want %v", host, got, want)
		}
	}
}
