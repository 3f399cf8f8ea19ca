package ratelimit

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddress returns the address a request is counted under: the peer's
// IP, or with trustProxy the last address in X-Forwarded-For (the one the
// proxy appended). IPv6 addresses are counted by their /64, since one
// client commonly holds a whole /64.
func ClientAddress(r *http.Request, trustProxy bool) string {
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		host = h
	}
	if trustProxy {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			parts := strings.Split(xff[len(xff)-1], ",")
			host = strings.TrimSpace(parts[len(parts)-1])
		}
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		if len(host) > 64 {
			host = host[:64]
		}
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}
