package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"testing"
	"time"
)

// guardCase is one address and whether the SSRF guard must refuse it.
type guardCase struct {
	addr    string
	blocked bool
}

// guardCases covers every special-purpose range with an address inside and,
// where one exists, the nearest address outside that must stay allowed.
var guardCases = []guardCase{
	// 0.0.0.0/8 "this network"
	{"0.0.0.0", true}, {"0.255.255.255", true}, {"1.0.0.0", false},
	// 10.0.0.0/8 private
	{"9.255.255.255", false}, {"10.0.0.0", true}, {"10.255.255.255", true}, {"11.0.0.0", false},
	// 100.64.0.0/10 shared address space (carrier-grade NAT)
	{"100.63.255.255", false}, {"100.64.0.0", true}, {"100.127.255.255", true}, {"100.128.0.0", false},
	// 127.0.0.0/8 loopback
	{"126.255.255.255", false}, {"127.0.0.1", true}, {"127.255.255.255", true}, {"128.0.0.0", false},
	// 169.254.0.0/16 link-local (cloud metadata)
	{"169.253.255.255", false}, {"169.254.169.254", true}, {"169.255.0.0", false},
	// 172.16.0.0/12 private
	{"172.15.255.255", false}, {"172.16.0.0", true}, {"172.31.255.255", true}, {"172.32.0.0", false},
	// 192.0.0.0/24 IETF protocol assignments
	{"191.255.255.255", false}, {"192.0.0.0", true}, {"192.0.0.9", true}, {"192.0.0.255", true}, {"192.0.1.0", false},
	// 192.0.2.0/24 TEST-NET-1
	{"192.0.2.1", true}, {"192.0.3.0", false},
	// 192.31.196.0/24 AS112-v4
	{"192.31.195.255", false}, {"192.31.196.1", true}, {"192.31.197.0", false},
	// 192.52.193.0/24 AMT
	{"192.52.192.255", false}, {"192.52.193.1", true}, {"192.52.194.0", false},
	// 192.88.99.0/24 deprecated 6to4 relay anycast
	{"192.88.98.255", false}, {"192.88.99.1", true}, {"192.88.100.0", false},
	// 192.168.0.0/16 private
	{"192.167.255.255", false}, {"192.168.1.1", true}, {"192.169.0.0", false},
	// 192.175.48.0/24 direct delegation AS112
	{"192.175.47.255", false}, {"192.175.48.1", true}, {"192.175.49.0", false},
	// 198.18.0.0/15 benchmarking
	{"198.17.255.255", false}, {"198.18.0.0", true}, {"198.19.255.255", true}, {"198.20.0.0", false},
	// 198.51.100.0/24 TEST-NET-2
	{"198.51.99.255", false}, {"198.51.100.1", true}, {"198.51.101.0", false},
	// 203.0.113.0/24 TEST-NET-3
	{"203.0.112.255", false}, {"203.0.113.1", true}, {"203.0.114.0", false},
	// 224.0.0.0/4 multicast
	{"223.255.255.255", false}, {"224.0.0.1", true}, {"239.255.255.255", true},
	// 240.0.0.0/4 reserved, 255.255.255.255 limited broadcast
	{"240.0.0.1", true}, {"255.255.255.254", true}, {"255.255.255.255", true},
	// public IPv4
	{"8.8.8.8", false}, {"1.1.1.1", false},

	// ::/128, ::1/128 and the deprecated IPv4-compatible ::/96
	{"::", true}, {"::1", true}, {"::2", true}, {"::127.0.0.1", true}, {"::8.8.8.8", true},
	// ::ffff:0:0/96 IPv4-mapped: judged by the embedded address
	{"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true}, {"::ffff:0.0.0.0", true},
	{"::ffff:169.254.169.254", true}, {"::ffff:8.8.8.8", false},
	// ::ffff:0:0:0/96 IPv4-translated (SIIT), outside 2000::/3
	{"::ffff:0:a00:1", true},
	// 64:ff9b::/96 NAT64: judged by the embedded address
	{"64:ff9b::7f00:1", true}, {"64:ff9b::a00:1", true}, {"64:ff9b::a9fe:a9fe", true},
	{"64:ff9b::ffff:ffff", true}, {"64:ff9b::808:808", false}, {"64:ff9b::1.1.1.1", false},
	{"64:ff9b::1:0:0", true}, // just past the /96, still not global unicast
	// 64:ff9b:1::/48 local-use NAT64: all of it
	{"64:ff9b:1::a00:1", true}, {"64:ff9b:1::808:808", true}, {"64:ff9b:1:ffff:ffff:ffff:ffff:ffff", true},
	// 100::/64 discard-only, 100:0:0:1::/64 dummy prefix
	{"100::1", true}, {"100::ffff:ffff:ffff:ffff", true}, {"100:0:0:1::1", true},
	// 2001::/23 IETF protocol assignments, Teredo 2001::/32 among them
	{"2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2001::1", true},
	{"2001:0:4136:e378:8000:63bf:3fff:fdd2", true}, {"2001:1::1", true}, {"2001:2::1", true},
	{"2001:4:112::1", true}, {"2001:10::1", true}, {"2001:20::1", true},
	{"2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"2001:200::", false},
	// 2001:db8::/32 documentation
	{"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2001:db8::1", true},
	{"2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"2001:db9::", false},
	// 2002::/16 6to4, whatever the embedded address
	{"2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2002:7f00:1::", true},
	{"2002:a00:1::1", true}, {"2002:808:808::1", true}, {"2003::", false},
	// 2620:4f:8000::/48 direct delegation AS112
	{"2620:4f:7fff:ffff:ffff:ffff:ffff:ffff", false}, {"2620:4f:8000::1", true}, {"2620:4f:8001::", false},
	// 3fff::/20 documentation
	{"3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"3fff::1", true},
	{"3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"3fff:1000::", false},
	// 5f00::/16 SRv6 SIDs
	{"5f00::1", true}, {"5f00:ffff::1", true},
	// fc00::/7 unique local
	{"fc00::1", true}, {"fd12:3456::1", true}, {"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
	// fe80::/10 link-local, fec0::/10 site-local
	{"fe80::1", true}, {"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"fec0::1", true},
	{"feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
	// ff00::/8 multicast
	{"ff02::1", true}, {"ff0e::1", true}, {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
	// zones change nothing
	{"fe80::1%eth0", true}, {"fc00::1%eth0", true}, {"::1%lo", true}, {"::ffff:127.0.0.1%eth0", true},
	{"64:ff9b::a00:1%eth0", true}, {"2001:db8::1%eth0", true}, {"2002:7f00:1::%1", true},
	{"2606:4700:4700::1111%eth0", false},
	// public IPv6
	{"2606:4700:4700::1111", false}, {"2001:4860:4860::8888", false}, {"2a00:1450:4001:81b::200e", false},
}

func TestIsBlocked(t *testing.T) {
	for _, c := range guardCases {
		ip, err := netip.ParseAddr(c.addr)
		if err != nil {
			t.Fatalf("bad test address %q: %v", c.addr, err)
		}
		if got := isBlocked(ip); got != c.blocked {
			t.Errorf("isBlocked(%s) = %v, want %v", c.addr, got, c.blocked)
		}
	}
}

func TestIsBlockedInvalid(t *testing.T) {
	if !isBlocked(netip.Addr{}) {
		t.Error("the zero netip.Addr is allowed")
	}
}

// TestDialRefusesBlocked checks that the client applies this guard when it
// connects, after name resolution: addresses that only the full
// special-purpose list refuses must fail with errPrivate before any packet
// is sent.
func TestDialRefusesBlocked(t *testing.T) {
	dial := NewHTTPClient(false).Transport.(*http.Transport).DialContext
	for _, addr := range []string{"[::7f00:1]:80", "[64:ff9b:1::a00:1]:80", "[2001:db8::1]:80",
		"[2002:7f00:1::]:80", "[100::1]:80", "[fe80::1%lo]:80", "192.0.2.1:80", "198.51.100.1:80"} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := dial(ctx, "tcp", addr)
		cancel()
		if conn != nil {
			conn.Close()
		}
		if !errors.Is(err, errPrivate) {
			t.Errorf("dial %s: %v, want errPrivate", addr, err)
		}
	}
}

// FuzzBlocked checks invariants of the guard on arbitrary bytes: no panic
// on any input; an IPv4 address, its IPv4-mapped and its NAT64 forms get
// the same answer; zones and a text round trip change nothing; forms that
// embed IPv4 outside the NAT64 prefix are always refused; and whatever is
// allowed is global unicast that no standard-library predicate calls
// private.
func FuzzBlocked(f *testing.F) {
	for _, c := range guardCases {
		ip := netip.MustParseAddr(c.addr)
		f.Add(ip.AsSlice())
		if ip.Is4() {
			b := ip.As16()
			f.Add(b[:])
		}
	}
	f.Add([]byte{})
	f.Add(make([]byte, 16))
	f.Fuzz(func(t *testing.T, b []byte) {
		ip, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		got := isBlocked(ip)
		checkAllowedIsPublic(t, ip, got)
		checkTextRoundTrip(t, ip, got)
		if ip.Is6() {
			if z := isBlocked(ip.WithZone("eth0")); z != got {
				t.Errorf("isBlocked(%s) = %v but with a zone %v", ip, got, z)
			}
		}
		if ip.Is4In6() {
			if u := isBlocked(ip.Unmap()); u != got {
				t.Errorf("isBlocked(%s) = %v but unmapped %v", ip, got, u)
			}
		}
		checkEmbeddings(t, netip.AddrFrom4([4]byte(b[len(b)-4:])))
	})
}

// checkAllowedIsPublic fails if an allowed address is anything but public.
func checkAllowedIsPublic(t *testing.T, ip netip.Addr, blocked bool) {
	t.Helper()
	if blocked {
		return
	}
	u := ip.WithZone("").Unmap()
	if v4, ok := nat64Target(u); ok {
		u = v4
	}
	if !u.IsGlobalUnicast() || u.IsPrivate() || u.IsLoopback() || u.IsMulticast() ||
		u.IsLinkLocalUnicast() || u.IsUnspecified() || inAny(specialPurpose, u) ||
		(u.Is6() && !globalUnicast6.Contains(u)) {
		t.Errorf("isBlocked(%s) = false for a non-public address", ip)
	}
}

// checkTextRoundTrip fails if printing and parsing ip changes the answer.
func checkTextRoundTrip(t *testing.T, ip netip.Addr, blocked bool) {
	t.Helper()
	back, err := netip.ParseAddr(ip.String())
	if err != nil {
		t.Fatalf("ParseAddr(%q): %v", ip.String(), err)
	}
	if isBlocked(back) != blocked {
		t.Errorf("isBlocked(%s) = %v but %v after a text round trip", ip, blocked, !blocked)
	}
}

// checkEmbeddings compares v4 with the IPv6 forms that embed it.
func checkEmbeddings(t *testing.T, v4 netip.Addr) {
	t.Helper()
	want := isBlocked(v4)
	a := v4.As4()
	same := map[string][16]byte{
		"IPv4-mapped": {10: 0xff, 11: 0xff, 12: a[0], 13: a[1], 14: a[2], 15: a[3]},
		"NAT64":       {0: 0x00, 1: 0x64, 2: 0xff, 3: 0x9b, 12: a[0], 13: a[1], 14: a[2], 15: a[3]},
	}
	for form, b := range same {
		if got := isBlocked(netip.AddrFrom16(b)); got != want {
			t.Errorf("isBlocked(%s) = %v but its %s form %s: %v", v4, want, form, netip.AddrFrom16(b), got)
		}
	}
	refused := map[string][16]byte{
		"IPv4-compatible": {12: a[0], 13: a[1], 14: a[2], 15: a[3]},
		"local-use NAT64": {0: 0x00, 1: 0x64, 2: 0xff, 3: 0x9b, 5: 0x01, 12: a[0], 13: a[1], 14: a[2], 15: a[3]},
		"6to4":            {0: 0x20, 1: 0x02, 2: a[0], 3: a[1], 4: a[2], 5: a[3]},
		"Teredo":          {0: 0x20, 1: 0x01, 12: ^a[0], 13: ^a[1], 14: ^a[2], 15: ^a[3]},
		"IPv4-translated": {8: 0xff, 9: 0xff, 12: a[0], 13: a[1], 14: a[2], 15: a[3]},
	}
	for form, b := range refused {
		if !isBlocked(netip.AddrFrom16(b)) {
			t.Errorf("the %s form %s of %s is allowed", form, netip.AddrFrom16(b), v4)
		}
	}
}
