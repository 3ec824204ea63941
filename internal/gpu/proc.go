package gpu

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNoProcess means no process has the PID asked about.
var ErrNoProcess = errors.New("no such process")

// ProcFS reads processes from a /proc file system; Root is "/proc" on a
// real host and a test folder in tests.
type ProcFS struct{ Root string }

// HostProc is the host's /proc.
var HostProc = ProcFS{Root: "/proc"}

// UID returns the real user id of process pid.
func (p ProcFS) UID(pid int) (int, error) {
	f, err := os.Open(filepath.Join(p.Root, strconv.Itoa(pid), "status"))
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("gpu: process %d: %w", pid, ErrNoProcess)
	}
	if err != nil {
		return 0, fmt.Errorf("gpu: process %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Uid:"); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				return strconv.Atoi(fields[0])
			}
		}
	}
	return 0, fmt.Errorf("gpu: process %d: no Uid line in its status", pid)
}

// Owner returns the name of the Unix user who owns process pid (the
// number, when the account has no name).
func (p ProcFS) Owner(pid int) (string, error) {
	uid, err := p.UID(pid)
	if err != nil {
		return "", err
	}
	return UserName(uid), nil
}

// Name returns the command name of process pid ("" when unknown).
func (p ProcFS) Name(pid int) string {
	b, err := os.ReadFile(filepath.Join(p.Root, strconv.Itoa(pid), "comm"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Alive reports whether process pid exists and is not a zombie.
func (p ProcFS) Alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join(p.Root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) S …: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// StartTime returns when process pid started, in clock ticks since the
// host booted (field 22 of /proc/PID/stat): with the PID, it names one
// process, since a PID is reused only by a process started later.
func (p ProcFS) StartTime(pid int) (uint64, error) {
	b, err := os.ReadFile(filepath.Join(p.Root, strconv.Itoa(pid), "stat"))
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("gpu: process %d: %w", pid, ErrNoProcess)
	}
	if err != nil {
		return 0, fmt.Errorf("gpu: process %d: %w", pid, err)
	}
	// pid (comm) state ppid …: the command may hold spaces and parentheses,
	// so fields are counted from the last ')', which ends field 2.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	fields := strings.Fields(s[i+1:])
	const startField = 22 - 3 // fields[0] is field 3, the state
	if i < 0 || len(fields) <= startField {
		return 0, fmt.Errorf("gpu: process %d: its stat has no start time", pid)
	}
	v, err := strconv.ParseUint(fields[startField], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("gpu: process %d: start time %q: %w", pid, fields[startField], err)
	}
	return v, nil
}

// Cmdline returns process pid's arguments.
func (p ProcFS) Cmdline(pid int) []string {
	b, err := os.ReadFile(filepath.Join(p.Root, strconv.Itoa(pid), "cmdline"))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// UserName returns the account name of uid, or the number in text.
func UserName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return strconv.Itoa(uid)
}
