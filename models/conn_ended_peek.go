//go:build linux || darwin

package models

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"
)

// endedByServer reports whether the server has already ended an idle
// connection, without a round trip: it peeks at the socket, without
// blocking, for the server's goodbye or the end of the stream. code is the
// goodbye's SQLSTATE when it could be read ("" otherwise: a closed stream,
// or TLS, whose records it does not open).
func endedByServer(c net.Conn) (ended bool, code string) {
	t, isTLS := c.(*tls.Conn)
	if isTLS {
		c = t.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false, ""
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false, ""
	}
	// Control, not Read: pgx's background reader may be parked in a read
	// of this socket (it starts during a slow write and stays until data
	// comes), holding the read lock that Read would wait on. A peek beside
	// it takes nothing from it; what it already read, this does not see.
	var buf [256]byte
	var n int
	var rerr error
	if err := raw.Control(func(fd uintptr) {
		n, _, rerr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	}); err != nil {
		return errors.Is(err, net.ErrClosed), ""
	}
	switch {
	case errors.Is(rerr, syscall.EAGAIN) || errors.Is(rerr, syscall.EWOULDBLOCK) || errors.Is(rerr, syscall.EINTR):
		return false, "" // nothing waiting: the usual case
	case rerr != nil:
		return true, "" // reset by the peer
	case n == 0:
		return true, "" // end of stream
	case isTLS:
		return true, "" // the server spoke unasked; most likely its goodbye
	}
	return goodbye(buf[:n])
}
