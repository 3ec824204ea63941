package cli

import (
	"cmp"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/lighthttp"
)

// newHealthcheckCmd is the probe a container runtime runs (Docker's
// HEALTHCHECK): it asks the local server's /healthz (or /readyz) and exits
// 0 on 200, 1 otherwise. The image has no curl, so the binary probes itself.
func newHealthcheckCmd() *cobra.Command {
	var url string
	var ready bool
	cmd := &cobra.Command{
		Use:   "healthcheck [--ready] [--url URL]",
		Short: "Exit 0 when the local server answers /healthz (or /readyz with --ready): for Docker HEALTHCHECK",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path := "/healthz"
			if ready {
				path = "/readyz"
			}
			target := cmp.Or(url, localURL(os.Getenv("GPUSCHED_LISTEN"))+path)
			c := lighthttp.Client{Timeout: 5 * time.Second}
			resp, err := c.Do(cmd.Context(), &lighthttp.Request{Method: "GET", URL: target})
			if err != nil {
				return fmt.Errorf("healthcheck: %w", err)
			}
			if resp.StatusCode != 200 {
				return fmt.Errorf("healthcheck: %s answered %s", target, resp.Status)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ok")
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "URL to probe (default: http://GPUSCHED_LISTEN/healthz, a wildcard address probed on loopback)")
	cmd.Flags().BoolVar(&ready, "ready", false, "probe /readyz: the database answers and the schema is current")
	return cmd
}

// localURL is the loopback URL of a listen address: 0.0.0.0:8080 and :8080
// are probed at 127.0.0.1:8080.
func localURL(listen string) string {
	host, port, err := net.SplitHostPort(cmp.Or(listen, "127.0.0.1:8080"))
	if err != nil {
		return "http://127.0.0.1:8080"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
