package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

func newRenewCmd() *cobra.Command {
	var ttl time.Duration
	cmd := &cobra.Command{
		Use:   "renew ID [ID…] [--ttl 2h]",
		Short: "Renew leases (gpu-allocate's): each runs for --ttl more from now (default: its own TTL), at most the policy's cap",
		Long: `Every lease has a TTL and ends when it runs out. Renew keeps a lease you hold: it then
runs for --ttl from now (default: the TTL it was given), at most what the scheduling policy
allows (leases.max_ttl). A lease still waiting for GPUs gets --ttl once granted. Leases that
the node agent made for 'gpusched run' are renewed by the agent while the command runs.`,
		Example: `  gpusched renew 42 --ttl 4h`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if ttl < 0 || (ttl > 0 && ttl < time.Second) {
				return fmt.Errorf("--ttl %s: want a duration of at least 1s, e.g. 4h", ttl)
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			return eachID(args, "lease", func(id int64) error {
				j, err := c.RenewLease(cmd.Context(), id, ttl)
				if err != nil {
					return err
				}
				switch {
				case j.LeaseExpiresAt != nil && j.State == api.JobRunning:
					fmt.Fprintf(cmd.OutOrStdout(), "lease %d renewed until %s (in %s)\n", j.ID,
						j.LeaseExpiresAt.Local().Format("Mon 2 Jan 15:04 MST"), j.LeaseExpiresAt.Sub(time.Now()).Round(time.Minute))
				case j.LeaseTTLS != nil:
					fmt.Fprintf(cmd.OutOrStdout(), "lease %d will run for %s once granted (%s now)\n", j.ID, time.Duration(*j.LeaseTTLS)*time.Second, j.State)
				default:
					fmt.Fprintf(cmd.OutOrStdout(), "lease %d renewed (%s)\n", j.ID, j.State)
				}
				return nil
			})
		},
	}
	cmd.Flags().DurationVar(&ttl, "ttl", 0, "how long the lease runs from now, e.g. 4h (default: its own TTL)")
	return cmd
}
