package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// Build facts, set with -ldflags "-X main.version=… -X main.commit=… -X main.buildDate=…"
// by `make build` and `make release`.
var (
	commit    = "unknown"
	buildDate = "unknown"
)

func newVersionCmd() *cobra.Command {
	var short bool
	cmd := &cobra.Command{
		Use:   "version [--short]",
		Short: "Print the version, commit, build date, Go version and whether NVML is compiled in",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if short {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), version)
				return err
			}
			return printVersion(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&short, "short", false, "print the version alone")
	return cmd
}

// printVersion writes the build facts, one "key: value" a line.
func printVersion(w io.Writer) error {
	nvml := "yes"
	if !gpu.NVMLCompiledIn {
		nvml = "no (built without cgo: real GPUs cannot be read; --fake-gpus only)"
	}
	_, err := fmt.Fprintf(w, "gpusched %s\ncommit: %s\nbuilt: %s\ngo: %s %s/%s\nnvml: %s\n",
		version, commit, buildDate, runtime.Version(), runtime.GOOS, runtime.GOARCH, nvml)
	return err
}
