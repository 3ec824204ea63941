//go:build unix

package pgembed

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Running returns the URL of a server already running on dataDir, started
// by this or another process (e.g. `gpusched serve --dev` in another
// terminal), for database. It reads the data folder's postmaster.pid, which
// PostgreSQL keeps up to date with its pid, port, socket folder and listen
// address, checks that the pid is alive and the server ready, and that it
// accepts connections; ok is false otherwise (also after a crash left a
// stale postmaster.pid behind). The caller must be able to read the data
// folder: the account that started the server, or root.
func Running(dataDir, database string) (url string, ok bool) {
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return "", false
	}
	pf, err := readPidFile(dir)
	if err != nil || !pf.ready() || !alive(pf.pid) || stale(pf.pid) || !pf.accepts() {
		return "", false
	}
	return pf.url(database), true
}

// pidFile is what postmaster.pid records (PostgreSQL 10 and later).
type pidFile struct {
	pid        int
	dataDir    string
	started    int64 // Unix time
	port       int
	socketDir  string // first of unix_socket_directories; "" for none
	listenAddr string // first of listen_addresses; "" for none
	status     string // "starting", "ready", "stopping", "standby"; "" if not yet written
}

// readPidFile reads dataDir/postmaster.pid.
func readPidFile(dataDir string) (pidFile, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return pidFile{}, err
	}
	return parsePidFile(b)
}

// parsePidFile parses postmaster.pid: lines of pid, data folder, start
// time, port, socket folder, listen address, shared memory key, status.
func parsePidFile(b []byte) (pidFile, error) {
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return pidFile{}, errors.New("postmaster.pid: too short")
	}
	line := func(i int) string {
		if i < len(lines) {
			return strings.TrimSpace(lines[i])
		}
		return ""
	}
	var pf pidFile
	var err error
	if pf.pid, err = strconv.Atoi(line(0)); err != nil || pf.pid <= 0 {
		return pidFile{}, fmt.Errorf("postmaster.pid: bad pid %q", line(0))
	}
	if pf.port, err = strconv.Atoi(line(3)); err != nil || pf.port <= 0 || pf.port > 65535 {
		return pidFile{}, fmt.Errorf("postmaster.pid: bad port %q", line(3))
	}
	pf.started, _ = strconv.ParseInt(line(2), 10, 64)
	pf.dataDir, pf.socketDir, pf.listenAddr, pf.status = line(1), line(4), line(5), line(7)
	return pf, nil
}

// ready reports whether the server finished starting (an absent status
// line, as in a file still being written, does not count).
func (pf pidFile) ready() bool { return pf.status == "ready" }

// host is the TCP address clients should use, or "" for the unix socket.
func (pf pidFile) host() string {
	switch pf.listenAddr {
	case "":
		return ""
	case "*", "0.0.0.0", "localhost":
		return "127.0.0.1"
	case "::":
		return "::1"
	}
	return pf.listenAddr
}

// accepts reports whether the server takes connections, which also tells
// a live server from an unrelated process that reused a stale pid.
func (pf pidFile) accepts() bool {
	network, addr := "tcp", net.JoinHostPort(pf.host(), strconv.Itoa(pf.port))
	if pf.host() == "" {
		if pf.socketDir == "" {
			return false
		}
		network, addr = "unix", filepath.Join(pf.socketDir, ".s.PGSQL."+strconv.Itoa(pf.port))
	}
	c, err := net.DialTimeout(network, addr, time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// url builds a pgx-ready URL for database as the postgres superuser, over
// TCP when the server listens on it (reachable from every local account),
// else over the unix socket.
func (pf pidFile) url(database string) string {
	if database == "" {
		database = "postgres"
	}
	if h := pf.host(); h != "" {
		u := url.URL{
			Scheme:   "postgres",
			User:     url.User("postgres"),
			Host:     net.JoinHostPort(h, strconv.Itoa(pf.port)),
			Path:     "/" + database,
			RawPath:  "/" + url.PathEscape(database), // escapes a "/" too
			RawQuery: "sslmode=disable",
		}
		return u.String()
	}
	q := url.Values{"host": {pf.socketDir}, "port": {strconv.Itoa(pf.port)}, "sslmode": {"disable"}}
	return "postgres://postgres@/" + url.PathEscape(database) + "?" + q.Encode()
}

// alive reports whether process pid exists and has not exited; a zombie
// (exited, not yet reaped) counts as gone. EPERM means it exists but
// belongs to another user, as the server does when root started it.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !zombie(pid)
}

// zombie reports whether pid has exited but not been reaped. A server
// started by pg_ctl is reparented to init, and a container's init may be
// slow or never reap. Linux only: elsewhere there is no /proc and it
// reports false.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the ")" closing the command name.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// stale reports whether a live-looking pid from postmaster.pid is in fact
// no server: a zombie, or a process of another program that reused the
// pid (common after a container restart). PostgreSQL itself takes both for
// a running server and refuses to start. Linux only: elsewhere false.
func stale(pid int) bool {
	if zombie(pid) {
		return true
	}
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return false
	}
	switch strings.TrimSpace(string(comm)) {
	case "postgres", "postmaster":
		return false
	}
	return true
}
