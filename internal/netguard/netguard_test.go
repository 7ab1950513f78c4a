package netguard

import (
	"encoding/binary"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// lastAddr is the last address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	p = p.Masked()
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

func TestEveryBlockIsRefusedFromFirstToLastAddress(t *testing.T) {
	for _, b := range append(append([]Block{}, V4Blocks()...), V6Blocks()...) {
		if b.Prefix.Masked() != b.Prefix {
			t.Errorf("%s is not written in its masked form", b.Prefix)
		}
		if b.Name == "" || !strings.HasPrefix(b.RFC, "RFC ") {
			t.Errorf("%s: name %q, RFC %q", b.Prefix, b.Name, b.RFC)
		}
		for _, a := range []netip.Addr{b.Prefix.Addr(), lastAddr(b.Prefix)} {
			r := Check(a)
			if r == nil {
				t.Errorf("%s (%s) is allowed", a, b)
				continue
			}
			if !r.Block.Prefix.Contains(a) || r.Block.Prefix.Bits() < b.Prefix.Bits() {
				t.Errorf("%s refused by %s, want %s or a block inside it", a, r.Block, b)
			}
			if !strings.Contains(r.Error(), a.String()) || !strings.Contains(r.Error(), r.Block.RFC) {
				t.Errorf("message %q", r.Error())
			}
		}
	}
	// Each block with both its ends, spelled out, so that a block that
	// goes missing from the tables is noticed too.
	for _, c := range []struct{ first, last string }{
		{"0.0.0.0", "0.255.255.255"},
		{"10.0.0.0", "10.255.255.255"},
		{"100.64.0.0", "100.127.255.255"},
		{"127.0.0.0", "127.255.255.255"},
		{"169.254.0.0", "169.254.255.255"},
		{"172.16.0.0", "172.31.255.255"},
		{"192.0.0.0", "192.0.0.255"},
		{"192.0.2.0", "192.0.2.255"},
		{"192.31.196.0", "192.31.196.255"},
		{"192.52.193.0", "192.52.193.255"},
		{"192.88.99.0", "192.88.99.255"},
		{"192.168.0.0", "192.168.255.255"},
		{"192.175.48.0", "192.175.48.255"},
		{"198.18.0.0", "198.19.255.255"},
		{"198.51.100.0", "198.51.100.255"},
		{"203.0.113.0", "203.0.113.255"},
		{"224.0.0.0", "239.255.255.255"},
		{"240.0.0.0", "255.255.255.254"},
		{"255.255.255.255", "255.255.255.255"},
		{"::", "::"},
		{"::1", "::1"},
		{"::", "::ffff:ffff"},
		{"64:ff9b::", "64:ff9b::ffff:ffff"},
		{"64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"},
		{"100::", "100::ffff:ffff:ffff:ffff"},
		{"100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff"},
		{"2001::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"2620:4f:8000::", "2620:4f:8000:ffff:ffff:ffff:ffff:ffff"},
		{"3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"4000::", "4000::1"},
	} {
		for _, s := range []string{c.first, c.last} {
			if Allowed(netip.MustParseAddr(s)) {
				t.Errorf("%s (of %s..%s) is allowed", s, c.first, c.last)
			}
		}
	}
}

// The public neighbours just outside each block are allowed: a block is
// no wider than its registry says.
func TestPublicNeighboursAreAllowed(t *testing.T) {
	for _, s := range []string{
		"1.0.0.0",                   // after 0.0.0.0/8
		"9.255.255.255", "11.0.0.0", // 10/8
		"100.63.255.255", "100.128.0.0", // 100.64/10
		"126.255.255.255", "128.0.0.0", // 127/8
		"169.253.255.255", "169.255.0.0", // 169.254/16
		"172.15.255.255", "172.32.0.0", // 172.16/12
		"191.255.255.255", "192.0.1.0", // 192.0.0/24
		"192.0.1.255", "192.0.3.0", // 192.0.2/24
		"192.31.195.255", "192.31.197.0", // 192.31.196/24
		"192.52.192.255", "192.52.194.0", // 192.52.193/24
		"192.88.98.255", "192.88.100.0", // 192.88.99/24
		"192.167.255.255", "192.169.0.0", // 192.168/16
		"192.175.47.255", "192.175.49.0", // 192.175.48/24
		"198.17.255.255", "198.20.0.0", // 198.18/15
		"198.51.99.255", "198.51.101.0", // 198.51.100/24
		"203.0.112.255", "203.0.114.0", // 203.0.113/24
		"223.255.255.255", // before 224/4
		"2000::",          // first of 2000::/3
		"2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:200::", // 2001::/23
		"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::", // 2001:db8::/32
		"2620:4f:7fff:ffff:ffff:ffff:ffff:ffff", "2620:4f:8001::", // 2620:4f:8000::/48
		"3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "3fff:1000::", // 3fff::/20
		"3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", // last of 2000::/3
		"8.8.8.8", "2606:4700:4700::1111",
	} {
		if r := Check(netip.MustParseAddr(s)); r != nil {
			t.Errorf("%s is refused: %v", s, r)
		}
	}
}

func TestCarriedIPv4IsJudged(t *testing.T) {
	cases := []struct {
		addr string
		ok   bool
		form string
	}{
		{"::ffff:100.100.100.200", false, "IPv4-mapped"},
		{"::ffff:127.0.0.1", false, "IPv4-mapped"},
		{"::ffff:8.8.8.8", true, ""},
		{"2002:6464:64c8::", false, "6to4"},     // 100.100.100.200
		{"2002:7f00:1::1", false, "6to4"},       // 127.0.0.1
		{"2002:c0a8:101:1::1", false, "6to4"},   // 192.168.1.1
		{"2002:808:808::1", true, ""},           // 8.8.8.8
		{"::100.100.100.200", false, ""},        // IPv4-compatible: refused whatever it holds
		{"::8.8.8.8", false, ""},                //
		{"64:ff9b::a9fe:a9fe", false, ""},       // NAT64 of 169.254.169.254
		{"64:ff9b::808:808", false, ""},         // NAT64 of 8.8.8.8: the translator may be inside
		{"64:ff9b:1::a9fe:a9fe", false, ""},     // local-use NAT64
		{"fe80::1%eth0", false, ""},             // zones are ignored
		{"2606:4700:4700::1111%eth0", true, ""}, //
	}
	for _, c := range cases {
		r := Check(netip.MustParseAddr(c.addr))
		if (r == nil) != c.ok {
			t.Errorf("%s: refusal %v, want allowed %v", c.addr, r, c.ok)
			continue
		}
		if r != nil && r.Form != c.form {
			t.Errorf("%s: form %q, want %q (%v)", c.addr, r.Form, c.form, r)
		}
	}
	r := Check(netip.MustParseAddr("2002:6464:64c8::"))
	if want := "2002:6464:64c8:: is the 6to4 form of 100.100.100.200, which is in 100.64.0.0/10 (Shared Address Space, RFC 6598)"; !strings.HasPrefix(r.Error(), want) {
		t.Errorf("message %q, want it to start %q", r.Error(), want)
	}
}

func TestNetIPForms(t *testing.T) {
	for _, c := range []struct {
		ip net.IP
		ok bool
	}{
		{net.ParseIP("8.8.8.8"), true}, // 16-byte form of an IPv4 address
		{net.ParseIP("8.8.8.8").To4(), true},
		{net.ParseIP("100.100.100.200"), false},
		{net.ParseIP("0.1.2.3"), false},
		{nil, false},
		{net.IP{1, 2, 3}, false},
	} {
		if AllowedIP(c.ip) != c.ok {
			t.Errorf("%v: allowed %v, want %v", c.ip, !c.ok, c.ok)
		}
		if (CheckIP(c.ip) == nil) != c.ok {
			t.Errorf("%v: CheckIP %v", c.ip, CheckIP(c.ip))
		}
	}
	if Allowed(netip.Addr{}) {
		t.Error("the zero address is allowed")
	}
}

// FuzzCarriedForms: every form of an IPv4 address gets the IPv4 address's
// verdict (mapped, 6to4 whatever its subnet and host bits) or a refusal
// (IPv4-compatible, NAT64); no address is allowed outside 2000::/3 or
// inside a block; and a refusal names a block that holds what it judged.
func FuzzCarriedForms(f *testing.F) {
	f.Add(uint32(0x6464_64c8), uint64(0), uint64(1))     // 100.100.100.200
	f.Add(uint32(0xa9fe_a9fe), uint64(7), uint64(0))     // 169.254.169.254
	f.Add(uint32(0x0808_0808), uint64(0), uint64(0))     // 8.8.8.8
	f.Add(uint32(0x7f00_0001), uint64(1<<63), uint64(9)) // 127.0.0.1
	f.Add(uint32(0xffff_ffff), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, v4 uint32, hi, lo uint64) {
		var b4 [4]byte
		binary.BigEndian.PutUint32(b4[:], v4)
		a4 := netip.AddrFrom4(b4)
		want := Allowed(a4)

		var m [16]byte
		m[10], m[11] = 0xff, 0xff
		copy(m[12:], b4[:])
		if got := Allowed(netip.AddrFrom16(m)); got != want {
			t.Fatalf("%s allowed %v, its mapped form %v", a4, want, got)
		}

		var s [16]byte
		binary.BigEndian.PutUint64(s[8:], lo)
		binary.BigEndian.PutUint16(s[6:], uint16(hi))
		s[0], s[1] = 0x20, 0x02
		copy(s[2:6], b4[:])
		if got := Allowed(netip.AddrFrom16(s)); got != want {
			t.Fatalf("%s allowed %v, its 6to4 form %s %v", a4, want, netip.AddrFrom16(s), got)
		}

		for _, prefix := range []string{"::", "64:ff9b::", "64:ff9b:1::"} {
			p := netip.MustParseAddr(prefix).As16()
			copy(p[12:], b4[:])
			if prefix == "64:ff9b:1::" {
				binary.BigEndian.PutUint32(p[6:], uint32(hi)) // any subnet and suffix of the /48
			}
			if a := netip.AddrFrom16(p); Allowed(a) {
				t.Fatalf("%s (a %s form of %s) is allowed", a, prefix, a4)
			}
		}

		var raw [16]byte
		binary.BigEndian.PutUint64(raw[:8], hi)
		binary.BigEndian.PutUint64(raw[8:], lo)
		for _, a := range []netip.Addr{netip.AddrFrom16(raw), a4} {
			r := Check(a)
			if r == nil {
				if a.Is6() && !a.Is4In6() && !netip.MustParsePrefix("2000::/3").Contains(a) {
					t.Fatalf("%s is allowed outside 2000::/3", a)
				}
				for _, b := range append(append([]Block{}, V4Blocks()...), V6Blocks()...) {
					if b.Prefix.Contains(a) {
						t.Fatalf("%s is allowed inside %s", a, b)
					}
				}
				continue
			}
			judged := a
			if r.Form != "" {
				judged = r.V4
			}
			if !r.Block.Prefix.Contains(judged) {
				t.Fatalf("%s refused by %s, which does not hold %s", a, r.Block, judged)
			}
		}
	})
}
