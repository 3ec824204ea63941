package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"
)

// ServerBinary is the full binary's name: the control plane, migrations,
// the node agent, the admin commands and the simulator, beside the client
// commands.
const ServerBinary = "gpusched-server"

// ServerCommand is a command of gpusched-server that the `gpusched` client
// hands over to it.
type ServerCommand struct {
	Name, Short string
	Hidden      bool
}

// ServerCommands are the commands that need the server's packages (database,
// job queue, web framework, GPU library); gpusched-server's tests check that
// this list is exactly its own, Short lines included.
func ServerCommands() []ServerCommand {
	return []ServerCommand{
		{Name: "serve", Short: "Run the control plane: web dashboard, JSON API and background jobs"},
		{Name: "migrate", Short: "Apply the database schema (ours and River's); serve does this at start too"},
		{Name: "node", Short: "Run the node agent on a GPU host: telemetry, jobs, and the local /acquire API"},
		{Name: "user", Short: "Create and list users, set roles (e.g. to bootstrap the first admin)"},
		{Name: "token", Short: "Create, list and revoke personal and node API tokens"},
		{Name: "sim", Short: "Replay a job trace through the scheduling policies and compare them"},
		{Name: "dev", Short: "Development helpers", Hidden: true},
	}
}

// HandOvers returns the client's stand-ins for ServerCommands: each runs
// gpusched-server with the same arguments in place of this process, flags
// and --help included, so `gpusched serve` works wherever both are installed.
func HandOvers() []*cobra.Command {
	var cmds []*cobra.Command
	for _, sc := range ServerCommands() {
		cmds = append(cmds, &cobra.Command{
			Use:                sc.Name,
			Short:              sc.Short,
			Hidden:             sc.Hidden,
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				path, err := FindServer(os.Executable, exec.LookPath)
				if err != nil {
					return fmt.Errorf("gpusched %s: %w", sc.Name, err)
				}
				return execServer(path, append([]string{sc.Name}, args...))
			},
		})
	}
	return cmds
}

// FindServer returns the path of gpusched-server: the one beside this
// executable (symbolic links followed), else the one on PATH, else an error
// saying what to install.
func FindServer(executable func() (string, error), lookPath func(string) (string, error)) (string, error) {
	name := ServerBinary
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	self, err := executable()
	if err == nil {
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		beside := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return beside, nil
		}
	}
	if p, err := lookPath(name); err == nil {
		return p, nil
	} else if !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("looking for %s on PATH: %w", name, err)
	}
	where := "on PATH"
	if self != "" {
		where = "beside " + self + " or on PATH"
	}
	return "", fmt.Errorf("this command runs the server binary %s, which is not %s: install %s from the same release tarball as gpusched (or the gpusched/gpusched image), or run make build", name, where, name)
}
