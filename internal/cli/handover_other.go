//go:build !unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// execServer runs the server binary at path with args on this process's
// standard streams and ends with its exit status (there is no exec(2) here).
func execServer(path string, args []string) error {
	c := exec.Command(path, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return ExitCode(exit.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", path, err)
	}
	return nil
}
