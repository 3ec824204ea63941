package gpu

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Group returns process pid's process group (field 5 of /proc/PID/stat):
// a job the node agent starts leads its own group, so the processes of a
// job are those of its group.
func (p ProcFS) Group(pid int) (int, error) {
	b, err := os.ReadFile(filepath.Join(p.Root, strconv.Itoa(pid), "stat"))
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("gpu: process %d: %w", pid, ErrNoProcess)
	}
	if err != nil {
		return 0, fmt.Errorf("gpu: process %d: %w", pid, err)
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("gpu: process %d: its stat has no process group", pid)
	}
	fields := strings.Fields(s[i+1:])
	const groupField = 5 - 3 // fields[0] is field 3, the state
	if len(fields) <= groupField {
		return 0, fmt.Errorf("gpu: process %d: its stat has no process group", pid)
	}
	g, err := strconv.Atoi(fields[groupField])
	if err != nil {
		return 0, fmt.Errorf("gpu: process %d: process group %q: %w", pid, fields[groupField], err)
	}
	return g, nil
}
