//go:build unix

package pgembed

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// maxSocketPath keeps "<dir>/.s.PGSQL.65535.lock" inside sun_path, which
// holds 108 bytes on Linux and 104 on macOS.
const maxSocketPath = 100

// plainPath matches paths safe to pass through pg_ctl's shell command line
// and PostgreSQL's list syntax unquoted.
var plainPath = regexp.MustCompile(`^[A-Za-z0-9/._-]+$`)

// socketDir returns the private unix socket folder for a data folder:
// <temp>/gpusched-pg-<hash of dataDir>, short enough for a socket path
// wherever the data folder lives; /tmp when the temporary folder is long
// (macOS's $TMPDIR) or odd.
func socketDir(dataDir string) string {
	sum := sha256.Sum256([]byte(dataDir))
	name := "gpusched-pg-" + hex.EncodeToString(sum[:6])
	base := os.TempDir()
	if !plainPath.MatchString(base) || len(base)+1+len(name)+len("/.s.PGSQL.65535.lock") > maxSocketPath {
		base = "/tmp"
	}
	return filepath.Join(base, name)
}

// prepareSocketDir creates the socket folder, mode 0700, owned by the
// server account. An existing one must be a real folder owned by that
// account (or by root, when root, after a crash between creating and
// handing it over): anything else in a shared /tmp is refused.
func (s *Server) prepareSocketDir() error {
	dir := s.socketDir
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pgembed: socket folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("pgembed: socket folder: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok {
		return fmt.Errorf("pgembed: socket folder %s is not a folder: remove it", dir)
	}
	switch {
	case int(st.Uid) == s.acct.uid:
	case st.Uid == 0 && s.acct.cred != nil:
		if err := s.acct.chown(dir); err != nil {
			return fmt.Errorf("pgembed: hand socket folder to user %q: %w", s.acct.name, err)
		}
	default:
		return fmt.Errorf("pgembed: socket folder %s belongs to uid %d, not to %q: remove it", dir, st.Uid, s.acct.name)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("pgembed: socket folder: %w", err)
		}
	}
	return nil
}

// freePort returns a TCP port on 127.0.0.1 free at the time of asking.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// ownerFile records the pid of the process that started the server and
// the server's pid, so a later Start can tell a server still in use from
// one left behind by a process that died without Stop.
func (s *Server) ownerFile() string { return filepath.Join(s.socketDir, "gpusched-owner") }

// writeOwner records this process as the owner of the server (best effort).
func (s *Server) writeOwner() {
	rec := fmt.Sprintf("%d %d\n", os.Getpid(), s.pid)
	_ = os.WriteFile(s.ownerFile(), []byte(rec), 0o600)
}

// readOwner returns the recorded owner's pid if the record is about the
// server with pid postmaster, else 0.
func (s *Server) readOwner(postmaster int) int {
	b, err := os.ReadFile(s.ownerFile())
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || f[1] != strconv.Itoa(postmaster) {
		return 0
	}
	owner, _ := strconv.Atoi(f[0])
	return owner
}

// cleanSocketDir removes the socket folder, with the owner record and any
// socket a crashed server left, unless a server runs on the data folder.
func (s *Server) cleanSocketDir() {
	if pf, err := readPidFile(s.dataDir); err == nil && alive(pf.pid) {
		return
	}
	_ = os.RemoveAll(s.socketDir)
}
