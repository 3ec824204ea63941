package handlers

import (
	"net"
	"net/netip"
)

// isLoopback reports whether a host:port (or a bare host) is a loopback
// address. Names are not resolved: "localhost" counts, other names do not.
func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// IsLoopbackListen reports whether a listen address binds only loopback
// (":8080" and "0.0.0.0:8080" do not).
func IsLoopbackListen(listen string) bool { return isLoopback(listen) }
