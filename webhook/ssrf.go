package webhook

import "net/netip"

// isBlocked reports whether the SSRF guard refuses a connection to ip. It
// refuses everything that is not an ordinary public unicast destination:
// every IANA special-purpose block (IPv4 and IPv6 registries), multicast,
// the deprecated IPv6 site-local and IPv4-compatible forms, IPv6 outside
// 2000::/3, and the zero Addr. Zones are ignored; IPv4-mapped addresses and
// the well-known NAT64 prefix are judged by the IPv4 address they carry.
func isBlocked(ip netip.Addr) bool {
	if !ip.IsValid() {
		return true
	}
	ip = ip.WithZone("").Unmap()
	if v4, ok := nat64Target(ip); ok {
		return isBlocked(v4)
	}
	if !ip.IsGlobalUnicast() || (ip.Is6() && !globalUnicast6.Contains(ip)) {
		return true
	}
	return inAny(specialPurpose, ip)
}

// nat64 is the well-known NAT64 prefix (RFC 6052): a translator forwards a
// connection to the IPv4 address in its last 32 bits, so that address
// decides. DNS64 answers with it for IPv4-only hosts on IPv6-only networks.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// nat64Target returns the IPv4 address embedded in a well-known NAT64
// address, and false for any other address.
func nat64Target(ip netip.Addr) (netip.Addr, bool) {
	if !nat64.Contains(ip) {
		return netip.Addr{}, false
	}
	b := ip.As16()
	return netip.AddrFrom4([4]byte(b[12:])), true
}

// globalUnicast6 is the only IPv6 space IANA allocates for global unicast;
// everything else (bar the NAT64 prefix, handled first) never reaches a
// public host.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// inAny reports whether one of the prefixes contains ip (without a zone).
func inAny(prefixes []netip.Prefix, ip netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// specialPurpose are the refused ranges: the IANA IPv4 and IPv6
// special-purpose address registries, all of each block even where parts
// are globally reachable (AS112, AMT, anycast relays: no webhook lives
// there), plus multicast and deprecated forms. Some IPv6 entries lie
// outside 2000::/3 and are refused by that rule already; they are listed so
// that this table mirrors the registries.
var specialPurpose = []netip.Prefix{
	// IPv4
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
	netip.MustParsePrefix("10.0.0.0/8"),         // private
	netip.MustParsePrefix("100.64.0.0/10"),      // shared address space (carrier-grade NAT)
	netip.MustParsePrefix("127.0.0.0/8"),        // loopback
	netip.MustParsePrefix("169.254.0.0/16"),     // link-local, cloud metadata
	netip.MustParsePrefix("172.16.0.0/12"),      // private
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),       // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.31.196.0/24"),    // AS112-v4
	netip.MustParsePrefix("192.52.193.0/24"),    // AMT
	netip.MustParsePrefix("192.88.99.0/24"),     // deprecated 6to4 relay anycast
	netip.MustParsePrefix("192.168.0.0/16"),     // private
	netip.MustParsePrefix("192.175.48.0/24"),    // direct delegation AS112
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"),    // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),     // documentation (TEST-NET-3)
	netip.MustParsePrefix("224.0.0.0/4"),        // multicast
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved
	netip.MustParsePrefix("255.255.255.255/32"), // limited broadcast

	// IPv6 (::ffff:0:0/96 IPv4-mapped is unmapped and judged as IPv4;
	// 64:ff9b::/96 NAT64 is judged by its IPv4 address)
	netip.MustParsePrefix("::/96"),             // ::, ::1, deprecated IPv4-compatible
	netip.MustParsePrefix("64:ff9b:1::/48"),    // local-use NAT64
	netip.MustParsePrefix("100::/64"),          // discard-only
	netip.MustParsePrefix("100:0:0:1::/64"),    // dummy prefix
	netip.MustParsePrefix("2001::/23"),         // IETF protocol assignments, Teredo 2001::/32 among them
	netip.MustParsePrefix("2001:db8::/32"),     // documentation
	netip.MustParsePrefix("2002::/16"),         // 6to4: embeds an IPv4 address, any of them
	netip.MustParsePrefix("2620:4f:8000::/48"), // direct delegation AS112
	netip.MustParsePrefix("3fff::/20"),         // documentation
	netip.MustParsePrefix("5f00::/16"),         // SRv6 SIDs
	netip.MustParsePrefix("fc00::/7"),          // unique local
	netip.MustParsePrefix("fe80::/10"),         // link-local
	netip.MustParsePrefix("fec0::/10"),         // deprecated site-local
	netip.MustParsePrefix("ff00::/8"),          // multicast
}
