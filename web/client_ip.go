package web

import (
	"net"
	"net/netip"

	"github.com/labstack/echo/v4"
)

// ipExtractor decides what c.RealIP() is: the connection's peer, unless the
// peer is one of the trusted proxies, in which case the nearest untrusted
// address of X-Forwarded-For. Without it echo would believe any client's
// X-Forwarded-For, and a client could pick its own address to dodge the
// sign-in rate limit or blur the audit log.
func ipExtractor(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
