//go:build unix

package pgembed

// Root handling. PostgreSQL refuses to run as root, so when this process is
// root, initdb, pg_ctl, postgres and psql run as an unprivileged account:
// the "postgres" system user when it exists (distribution packages create
// it), else a "gpusched" system user created on first use. The data folder,
// its log file and the socket folder are chowned to that account.
//
// The data folder stays where the caller asked, and its parents are never
// chmod-ed behind the user's back: opening, say, /root (mode 0700) to every
// account is not this package's decision. Instead Start checks, by entering
// the folder as that account, that it is reachable, and otherwise fails
// naming the folder that blocks it and suggesting GPUSCHED_DATA_DIR.

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// fallbackUser is the system user created when root has no "postgres" user.
const fallbackUser = "gpusched"

// account is the Unix account PostgreSQL runs as.
type account struct {
	name     string
	uid, gid int
	cred     *syscall.Credential // nil when not root: run as this process
}

// accountMu serialises looking up and creating the fallback user.
var accountMu sync.Mutex

// serverAccount returns the account to run PostgreSQL as, creating the
// fallback system user when root has no suitable one.
func serverAccount(ctx context.Context) (account, bool, error) {
	if os.Geteuid() != 0 {
		name := strconv.Itoa(os.Geteuid())
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
		return account{name: name, uid: os.Geteuid(), gid: os.Getegid()}, false, nil
	}
	accountMu.Lock()
	defer accountMu.Unlock()
	for _, name := range []string{"postgres", fallbackUser} {
		if u, err := user.Lookup(name); err == nil {
			a, err := fromUser(u)
			return a, false, err
		}
	}
	if err := createUser(ctx, fallbackUser); err != nil {
		if u, lerr := user.Lookup(fallbackUser); lerr == nil { // created meanwhile by another process
			a, err := fromUser(u)
			return a, false, err
		}
		return account{}, false, fmt.Errorf("pgembed: PostgreSQL refuses to run as root, and creating the %q system user to run it failed: %w", fallbackUser, err)
	}
	u, err := user.Lookup(fallbackUser)
	if err != nil {
		return account{}, false, fmt.Errorf("pgembed: look up new user %q: %w", fallbackUser, err)
	}
	a, err := fromUser(u)
	return a, true, err
}

// fromUser builds the account, with credentials, for a system user.
func fromUser(u *user.User) (account, error) {
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return account{}, fmt.Errorf("pgembed: user %q: uid %q: %w", u.Username, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return account{}, fmt.Errorf("pgembed: user %q: gid %q: %w", u.Username, u.Gid, err)
	}
	if uid == 0 {
		return account{}, fmt.Errorf("pgembed: user %q has uid 0, and PostgreSQL refuses to run as root", u.Username)
	}
	groups := []uint32{} // empty, not nil: drop root's supplementary groups
	if ids, err := u.GroupIds(); err == nil {
		for _, id := range ids {
			if g, err := strconv.ParseUint(id, 10, 32); err == nil {
				groups = append(groups, uint32(g))
			}
		}
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: groups}
	return account{name: u.Username, uid: int(uid), gid: int(gid), cred: cred}, nil
}

// createUser adds a system user without home folder or login shell, with
// useradd, or BusyBox's adduser where there is no useradd (Alpine).
func createUser(ctx context.Context, name string) error {
	shell := "/bin/false"
	for _, s := range []string{"/usr/sbin/nologin", "/sbin/nologin"} {
		if isExecutable(s) {
			shell = s
			break
		}
	}
	var cmd *exec.Cmd
	if p := findTool("useradd"); p != "" {
		cmd = exec.CommandContext(ctx, p, "--system", "--no-create-home", "--home-dir", "/nonexistent",
			"--shell", shell, "--user-group", name)
	} else if p := findTool("adduser"); p != "" {
		cmd = exec.CommandContext(ctx, p, "-S", "-D", "-H", "-h", "/nonexistent", "-s", shell, name)
	} else {
		return fmt.Errorf("neither useradd nor adduser found")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", filepath.Base(cmd.Path), err, tail(out))
	}
	return nil
}

// findTool finds an administration program on PATH or in the sbin folders,
// which a non-login root shell's PATH may lack.
func findTool(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/bin", "/bin"} {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p
		}
	}
	return ""
}

// chown hands path to the account; a no-op when not root.
func (a account) chown(path string) error {
	if a.cred == nil {
		return nil
	}
	return os.Lchown(path, a.uid, a.gid)
}

// chownTree hands root and everything below it to the account.
func (a account) chownTree(root string) error {
	if a.cred == nil {
		return nil
	}
	return filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, a.uid, a.gid)
	})
}

// checkReachable fails with a clear message when the account cannot enter
// and write dir, e.g. because a parent folder is /root with mode 0700.
func (a account) checkReachable(ctx context.Context, dir string) error {
	if a.cred == nil {
		return nil
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", `cd "$1" && test -w .`, "sh", dir)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: a.cred}
	if err := cmd.Run(); err == nil {
		return nil
	} else if ctx.Err() != nil {
		return fmt.Errorf("pgembed: check data folder %s: %w", dir, ctx.Err())
	}
	why := ""
	if blocked := a.blockingParent(dir); blocked != "" {
		why = fmt.Sprintf(" (%s does not let it through)", blocked)
	}
	return fmt.Errorf("pgembed: the data folder %s cannot be reached by the %q user PostgreSQL runs as when started by root%s: set GPUSCHED_DATA_DIR to a folder that user can reach, e.g. /var/lib/gpusched", dir, a.name, why)
}

// blockingParent returns the first folder on the way from / to dir that
// the account may not search, judged by mode bits, or "".
func (a account) blockingParent(dir string) string {
	var chain []string
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		chain = append([]string{d}, chain...)
		if d == filepath.Dir(d) {
			break
		}
	}
	groups := map[uint32]bool{uint32(a.gid): true}
	for _, g := range a.cred.Groups {
		groups[g] = true
	}
	for _, d := range chain {
		fi, err := os.Stat(d)
		if err != nil {
			return d
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return ""
		}
		perm := fi.Mode().Perm()
		switch {
		case int(st.Uid) == a.uid:
			perm &= 0o100
		case groups[st.Gid]:
			perm &= 0o010
		default:
			perm &= 0o001
		}
		if perm == 0 {
			return fmt.Sprintf("%s (mode %s)", d, fi.Mode().Perm())
		}
	}
	return ""
}
