package cli

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
)

// Build is what the build stamped into a binary (-ldflags "-X main.version=…
// -X main.commit=… -X main.buildDate=…", set by `make build` and `make
// release`), and the binary's own facts for `gpusched version`.
type Build struct {
	Version, Commit, Date string
	// Facts are extra "key: value" lines, e.g. whether NVML is compiled in.
	Facts []string
}

func newVersionCmd(b Build) *cobra.Command {
	var short bool
	cmd := &cobra.Command{
		Use:   "version [--short]",
		Short: "Print the version, commit, build date and Go version (gpusched-server version: whether NVML is compiled in)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if short {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), b.Version)
				return err
			}
			return printVersion(cmd.OutOrStdout(), b)
		},
	}
	cmd.Flags().BoolVar(&short, "short", false, "print the version alone")
	return cmd
}

// printVersion writes the build facts, one "key: value" a line.
func printVersion(w io.Writer, b Build) error {
	if _, err := fmt.Fprintf(w, "gpusched %s\ncommit: %s\nbuilt: %s\ngo: %s %s/%s\n",
		b.Version, b.Commit, b.Date, runtime.Version(), runtime.GOOS, runtime.GOARCH); err != nil {
		return err
	}
	for _, f := range b.Facts {
		if _, err := fmt.Fprintln(w, f); err != nil {
			return err
		}
	}
	return nil
}
