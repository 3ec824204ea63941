//go:build !(linux || darwin)

package models

import "net"

// endedByServer cannot look at the socket without reading on this system:
// a connection the server ended is found by its first statement instead
// (and by pgxpool's ping of connections idle over a second).
func endedByServer(net.Conn) (ended bool, code string) { return false, "" }
