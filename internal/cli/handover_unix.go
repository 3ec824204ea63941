//go:build unix

package cli

import (
	"fmt"
	"os"
	"syscall"
)

// execServer replaces this process with the server binary at path, run with
// args: signals, exit status and the terminal are then the server's own.
func execServer(path string, args []string) error {
	if err := syscall.Exec(path, append([]string{path}, args...), os.Environ()); err != nil {
		return fmt.Errorf("running %s: %w", path, err)
	}
	return nil
}
