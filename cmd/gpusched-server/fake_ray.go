package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/ray/raytest"
)

// newDevCmd is the hidden `gpusched dev` group of development helpers.
func newDevCmd() *cobra.Command {
	dev := &cobra.Command{Use: "dev", Short: "Development helpers", Hidden: true}
	dev.AddCommand(newFakeRayCmd())
	return dev
}

// newFakeRayCmd is `gpusched dev fake-ray`: the test Ray Jobs API server
// (internal/ray/raytest) as a process, to try Ray dispatch without a Ray
// cluster: GPUSCHED_RAY_ADDRESS=http://LISTEN gpusched serve --dev.
func newFakeRayCmd() *cobra.Command {
	var listen string
	var pending, run time.Duration
	cmd := &cobra.Command{
		Use:   "fake-ray",
		Short: "Serve a fake Ray Jobs REST API (jobs pend, run, then succeed; an entrypoint with " + raytest.FailMarker + " fails)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			srv := raytest.New(time.Now)
			srv.PendingFor, srv.RunFor = pending, run
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", listen, err)
			}
			hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
			fmt.Fprintf(cmd.OutOrStdout(), "fake Ray Jobs API on http://%s (set GPUSCHED_RAY_ADDRESS to it)\n", ln.Addr())
			go func() {
				<-ctx.Done()
				sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer cancel()
				_ = hs.Shutdown(sctx)
			}()
			if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8265", "listen address")
	cmd.Flags().DurationVar(&pending, "pending", 2*time.Second, "how long a job stays PENDING")
	cmd.Flags().DurationVar(&run, "run", 6*time.Second, "how long a job stays RUNNING")
	return cmd
}
