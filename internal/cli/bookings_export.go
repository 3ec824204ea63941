package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
)

func newBookingsExportCmd() *cobra.Command {
	var from, until, format, out, tz string
	cmd := &cobra.Command{
		Use:   "export [--from T] [--until T] [--format csv|ics] [-o FILE]",
		Short: "Export everyone's bookings as the sheet (CSV, local times; import reads it back) or iCalendar",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var f, u time.Time
			var err error
			if from != "" {
				if f, err = flagTime("from", from); err != nil {
					return err
				}
			}
			if until != "" {
				if u, err = flagTime("until", until); err != nil {
					return err
				}
			}
			if format != "csv" && format != "ics" {
				return fmt.Errorf("--format must be csv or ics")
			}
			if tz == "" {
				tz = localZoneName()
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			data, err := c.ExportBookings(cmd.Context(), f, u, format, tz)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(data)
				return err
			}
			return os.WriteFile(out, data, 0o644)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "from: "+whenHelp+" (default: 7 days ago)")
	cmd.Flags().StringVar(&until, "until", "", "until, like --from (default: 60 days ahead)")
	cmd.Flags().StringVar(&format, "format", "csv", "csv or ics")
	cmd.Flags().StringVar(&tz, "tz", "", "time zone of the sheet's times (default: TZ or the system's)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to FILE instead of standard output")
	return cmd
}
