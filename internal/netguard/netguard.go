// Package netguard decides whether an address may receive a webhook. It
// is the one judge for the client's URL checks, the sandbox's
// registrations and its delivery dialer (which asks it about the address
// it is about to connect to, after any DNS answer), and `bnpl listen
// --forward-to`.
//
// An address may receive a webhook when it lies in no block of the IANA
// special-purpose address registries (IPv4 and IPv6), nor in IPv4
// multicast, and, for IPv6, inside 2000::/3, the only space IANA hands out
// as global unicast. Forms that carry an IPv4 address are judged by that
// address: an IPv4-mapped address (::ffff:a.b.c.d) or a 6to4 one
// (2002:aabb:ccdd::/48) may receive a webhook exactly when its IPv4
// address may. The IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::/96,
// 64:ff9b:1::/48) forms are refused whatever they carry: the first is
// deprecated, and the second reaches the IPv4 address through a
// translator that may sit inside the network. Every block, even one the
// registry marks globally reachable (an anycast service, AS112), is
// refused: none of them is a merchant's web server.
package netguard

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
)

// Block is one range of addresses that never receives a webhook.
type Block struct {
	Prefix netip.Prefix
	// Name is the block's name in its registry.
	Name string
	// RFC is the document that sets the block aside.
	RFC string
}

func (b Block) String() string { return fmt.Sprintf("%s (%s, %s)", b.Prefix, b.Name, b.RFC) }

// Refusal says why an address may not receive a webhook.
type Refusal struct {
	Addr netip.Addr
	// Block is the block that refuses it: the one Addr lies in, or, for
	// an IPv4-mapped or 6to4 address, the one of the IPv4 address it
	// carries (V4).
	Block Block
	// Form names the form Addr carries V4 in ("IPv4-mapped", "6to4"),
	// "" when Addr itself lies in Block.
	Form string
	V4   netip.Addr
}

func (r *Refusal) Error() string {
	if r.Form != "" {
		return fmt.Sprintf("%s is the %s form of %s, which is in %s: it never receives webhooks", r.Addr, r.Form, r.V4, r.Block)
	}
	return fmt.Sprintf("%s is in %s: it never receives webhooks", r.Addr, r.Block)
}

func block(prefix, name, rfc string) Block {
	return Block{Prefix: netip.MustParsePrefix(prefix), Name: name, RFC: rfc}
}

// V4Blocks are the IPv4 blocks refused (parsed on first use, not at
// every start of bnpl): the IANA IPv4 Special-Purpose
// Address Registry, plus multicast (the IPv4 Multicast Address Space
// Registry). Blocks nested in others are listed for the record; the
// wider block refuses them anyway.
var V4Blocks = sync.OnceValue(func() []Block {
	return []Block{
		block("0.0.0.0/8", `"This network"`, "RFC 791, section 3.2"),
		block("0.0.0.0/32", `"This host on this network"`, "RFC 1122, section 3.2.1.3"),
		block("10.0.0.0/8", "Private-Use", "RFC 1918"),
		block("100.64.0.0/10", "Shared Address Space", "RFC 6598"),
		block("127.0.0.0/8", "Loopback", "RFC 1122, section 3.2.1.3"),
		block("169.254.0.0/16", "Link Local", "RFC 3927"),
		block("172.16.0.0/12", "Private-Use", "RFC 1918"),
		block("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890, section 2.1"),
		block("192.0.0.0/29", "IPv4 Service Continuity Prefix", "RFC 7335"),
		block("192.0.0.8/32", "IPv4 dummy address", "RFC 7600"),
		block("192.0.0.9/32", "Port Control Protocol Anycast", "RFC 7723"),
		block("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", "RFC 8155"),
		block("192.0.0.170/32", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050, section 2.2"),
		block("192.0.0.171/32", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050, section 2.2"),
		block("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737"),
		block("192.31.196.0/24", "AS112-v4", "RFC 7535"),
		block("192.52.193.0/24", "AMT", "RFC 7450"),
		block("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526"),
		block("192.88.99.2/32", "6a44-relay anycast address", "RFC 6751"),
		block("192.168.0.0/16", "Private-Use", "RFC 1918"),
		block("192.175.48.0/24", "Direct Delegation AS112 Service", "RFC 7534"),
		block("198.18.0.0/15", "Benchmarking", "RFC 2544"),
		block("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737"),
		block("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737"),
		block("224.0.0.0/4", "Multicast", "RFC 5771"),
		block("240.0.0.0/4", "Reserved", "RFC 1112, section 4"),
		block("255.255.255.255/32", "Limited Broadcast", "RFC 8190, RFC 919, section 7"),
	}
})

// The IPv6 blocks whose addresses carry an IPv4 address judged instead.
var (
	mapped = sync.OnceValue(func() Block { return block("::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291") })
	sixTo4 = sync.OnceValue(func() Block { return block("2002::/16", "6to4", "RFC 3056") })
)

// V6Blocks are the IPv6 blocks refused (parsed on first use): the IANA
// IPv6 Special-Purpose Address Registry, plus multicast, the deprecated
// IPv4-compatible and site-local blocks, and everything outside 2000::/3.
// Where blocks nest, a refusal names the narrowest. The IPv4-mapped and
// 6to4 blocks are not here: their addresses are judged by the IPv4
// address they carry.
var V6Blocks = sync.OnceValue(func() []Block {
	return []Block{
		block("::/128", "Unspecified Address", "RFC 4291"),
		block("::1/128", "Loopback Address", "RFC 4291"),
		block("::/96", "IPv4-compatible Address (deprecated)", "RFC 4291, section 2.5.5.1"),
		block("64:ff9b::/96", "IPv4-IPv6 Translation", "RFC 6052"),
		block("64:ff9b:1::/48", "IPv4-IPv6 Translation", "RFC 8215"),
		block("100::/64", "Discard-Only Address Block", "RFC 6666"),
		block("100:0:0:1::/64", "Dummy IPv6 Prefix", "RFC 9780"),
		block("2001::/23", "IETF Protocol Assignments", "RFC 2928"),
		block("2001::/32", "TEREDO", "RFC 4380, RFC 8190"),
		block("2001:1::1/128", "Port Control Protocol Anycast", "RFC 7723"),
		block("2001:1::2/128", "Traversal Using Relays around NAT Anycast", "RFC 8155"),
		block("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", "RFC 9665"),
		block("2001:2::/48", "Benchmarking", "RFC 5180, RFC Errata 1752"),
		block("2001:3::/32", "AMT", "RFC 7450"),
		block("2001:4:112::/48", "AS112-v6", "RFC 7535"),
		block("2001:10::/28", "Deprecated (previously ORCHID)", "RFC 4843"),
		block("2001:20::/28", "ORCHIDv2", "RFC 7343"),
		block("2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", "RFC 9374"),
		block("2001:db8::/32", "Documentation", "RFC 3849"),
		block("2620:4f:8000::/48", "Direct Delegation AS112 Service", "RFC 7534"),
		block("3fff::/20", "Documentation", "RFC 9637"),
		block("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602"),
		block("fc00::/7", "Unique-Local", "RFC 4193, RFC 8190"),
		block("fe80::/10", "Link-Local Unicast", "RFC 4291"),
		block("fec0::/10", "Site-Local (deprecated)", "RFC 3879"),
		block("ff00::/8", "Multicast", "RFC 4291"),
		// The rest of the space outside 2000::/3, the only space IANA hands
		// out as global unicast (the IPv6 Address Space registry).
		block("::/3", "outside Global Unicast (reserved or unassigned)", "RFC 4291, section 2.4"),
		block("4000::/2", "outside Global Unicast (reserved or unassigned)", "RFC 4291, section 2.4"),
		block("8000::/1", "outside Global Unicast (reserved or unassigned)", "RFC 4291, section 2.4"),
	}
})

// Check answers nil when addr may receive a webhook, and otherwise why
// not. An invalid (zero) address is refused. A zone is ignored.
func Check(addr netip.Addr) *Refusal {
	addr = addr.WithZone("")
	switch {
	case !addr.IsValid():
		return &Refusal{Addr: addr, Block: Block{Name: "not an address", RFC: "RFC 791, RFC 8200"}}
	case addr.Is4():
		if b, ok := find(V4Blocks(), addr); ok {
			return &Refusal{Addr: addr, Block: b}
		}
		return nil
	case mapped().Prefix.Contains(addr):
		return carried(addr, "IPv4-mapped", addr.Unmap())
	case sixTo4().Prefix.Contains(addr):
		b := addr.As16()
		return carried(addr, "6to4", netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	}
	if b, ok := find(V6Blocks(), addr); ok {
		return &Refusal{Addr: addr, Block: b}
	}
	return nil
}

// carried judges an IPv6 address by the IPv4 address v4 it carries.
func carried(addr netip.Addr, form string, v4 netip.Addr) *Refusal {
	r := Check(v4)
	if r == nil {
		return nil
	}
	return &Refusal{Addr: addr, Block: r.Block, Form: form, V4: v4}
}

// find answers the narrowest block of blocks that holds addr.
func find(blocks []Block, addr netip.Addr) (Block, bool) {
	best, ok := Block{}, false
	for _, b := range blocks {
		if b.Prefix.Contains(addr) && (!ok || b.Prefix.Bits() > best.Prefix.Bits()) {
			best, ok = b, true
		}
	}
	return best, ok
}

// Allowed reports whether addr may receive a webhook.
func Allowed(addr netip.Addr) bool { return Check(addr) == nil }

// AllowedIP is Allowed for a net.IP; nil or malformed is refused. A
// 16-byte form of an IPv4 address (as net.ParseIP answers) is judged as
// the IPv4 address.
func AllowedIP(ip net.IP) bool {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return false
	}
	return Allowed(addr)
}

// CheckIP is Check for a net.IP; nil or malformed is refused. A net.IP
// does not tell an IPv4 address from its IPv4-mapped form, so the refusal
// names the IPv4 address.
func CheckIP(ip net.IP) *Refusal {
	addr, _ := netip.AddrFromSlice(ip)
	return Check(addr.Unmap())
}
