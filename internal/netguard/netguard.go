// Package netguard decides which network addresses the server may call on a
// user's behalf (webhook and Slack channels): the public internet only,
// unless an administrator opens more. It checks a target twice, with the
// same rules: the URL's host when the target is saved (Policy.CheckHost),
// and the address actually dialled, after name resolution, at connect time
// (Policy.DialContext and Policy.Control), so that a name resolving to a
// private address, or re-resolving to one later, is refused too.
//
// Addresses are parsed with net/netip: IPv4-mapped IPv6 addresses are
// unmapped first, an address with a zone ("::1%lo") is always refused, and
// anything that does not parse is refused (fail closed).
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// ErrRefused is wrapped by every refusal.
var ErrRefused = errors.New("address not allowed")

// Policy says which addresses may be called.
type Policy struct {
	// AllowAll lets targets reach any address that parses, private and
	// loopback ones included (development and tests). Zones and names that
	// are not host names are refused even then.
	AllowAll bool
	// Allow lists networks an administrator opened beyond the public
	// internet (a webhook receiver on the office network, say).
	Allow []netip.Prefix
}

// nonPublic are the networks no user-given target may reach unless allowed:
// loopback, private, shared (CGNAT), link-local (cloud metadata),
// unique-local, NAT64 and 6to4 (which embed IPv4 addresses), documentation,
// benchmarking, multicast and reserved ranges.
var nonPublic = prefixes(
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
	"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
	"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
	"::/96", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32",
	"2002::/16", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

func refused(format string, args ...any) error {
	return fmt.Errorf("netguard: %s: %w", fmt.Sprintf(format, args...), ErrRefused)
}

// CheckAddr refuses a, unmapped, when it has a zone, is invalid, or lies
// outside the public internet and the allowed networks.
func (p Policy) CheckAddr(a netip.Addr) error {
	switch {
	case !a.IsValid():
		return refused("not an address")
	case a.Zone() != "":
		return refused("%s has a zone", a)
	}
	a = a.Unmap()
	for _, n := range p.Allow {
		if n.Contains(a) {
			return nil
		}
	}
	if p.AllowAll {
		return nil
	}
	for _, n := range nonPublic {
		if n.Contains(a) {
			return refused("%s is not a public address", a)
		}
	}
	return nil
}

// CheckHost checks the host of a target URL (url.URL.Hostname: no brackets,
// no port): an address literal by CheckAddr; a name must be a host name
// (letters, digits, '-', '_' and dots; not numeric like "127.1", which some
// resolvers read as an address) and, unless AllowAll, not localhost or a
// name under it, with or without the trailing dot. Where a name leads is
// checked again when it is dialled.
func (p Policy) CheckHost(host string) error {
	if strings.ContainsRune(host, '%') {
		return refused("%q has a zone", host)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return p.CheckAddr(a)
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "" || len(name) > 253 {
		return refused("%q is not a host name", host)
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return refused("%q is not a host name", host)
		}
	}
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		return refused("%q is not a host name", host)
	}
	if !p.AllowAll && (name == "localhost" || strings.HasSuffix(name, ".localhost")) {
		return refused("%q is this machine", host)
	}
	return nil
}

// Control is a net.Dialer's Control: it refuses the connection unless
// address (the resolved "ip:port" about to be connected) parses and passes
// CheckAddr.
func (p Policy) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refused("%q does not parse", address)
	}
	return p.CheckAddr(ap.Addr())
}

// DialContext returns d's DialContext with the policy applied: the host is
// checked before it is resolved (so localhost names never reach a
// resolver) and every address dialled is checked by Control. d is copied.
func (p Policy) DialContext(d *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	guarded := *d
	guarded.Control, guarded.ControlContext = p.Control, nil
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return nil, refused("%q is not host:port", address)
		}
		if err := p.CheckHost(host); err != nil {
			return nil, err
		}
		return guarded.DialContext(ctx, network, address)
	}
}
