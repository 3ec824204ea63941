package cli

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

func newUsageCmd() *cobra.Command {
	var month, week, by, format, tz string
	cmd := &cobra.Command{
		Use:   "usage [--month 2026-11 | --week 2026-W48] [--by user|team] [--format table|csv|json]",
		Short: "Accounting: GPU-hours used, booked but idle, reclaimed, and their cost, per user or team",
		Long: `Accounting for a month or an ISO week (default: this month), in this
machine's time zone (TZ): GPU-hours used, GPU-hours booked but idle, idle
GPU-hours the idle policy reclaimed, and the cost at the rates an admin set
(the policy's cost_rates and currency). Admins see everyone; members their
own figures and their team's. --format csv writes the sheet the accounting
page downloads.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if month != "" && week != "" {
				return fmt.Errorf("give --month or --week, not both")
			}
			if by != "user" && by != "team" {
				return fmt.Errorf("--by must be user or team")
			}
			q := url.Values{"by": {by}}
			if month != "" {
				q.Set("month", month)
			}
			if week != "" {
				q.Set("week", week)
			}
			if tz == "" {
				tz = localZoneName()
			}
			if tz != "" {
				q.Set("tz", tz)
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			switch format {
			case "csv":
				data, err := c.AccountingCSV(cmd.Context(), q)
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(data)
				return err
			case "json", "table":
			default:
				return fmt.Errorf("--format must be table, csv or json")
			}
			a, err := c.Accounting(cmd.Context(), q)
			if err != nil {
				return err
			}
			if format == "json" {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(a)
			}
			return usageTable(cmd, a)
		},
	}
	cmd.Flags().StringVar(&month, "month", "", "the month, like 2026-11 (default: this month)")
	cmd.Flags().StringVar(&week, "week", "", "an ISO week instead, like 2026-W48")
	cmd.Flags().StringVar(&by, "by", "user", "one row per user or per team")
	cmd.Flags().StringVar(&format, "format", "table", "table, csv or json")
	cmd.Flags().StringVar(&tz, "tz", "", "time zone of the period's days (default: TZ or the system's)")
	return cmd
}

// usageTable prints the report for people: the period in local time, a
// row per user or team and the total.
func usageTable(cmd *cobra.Command, a *api.Accounting) error {
	out := cmd.OutOrStdout()
	period := a.Period
	if period == "" {
		period = "from–to"
	}
	fmt.Fprintf(out, "%s: %s – %s, by %s\n", period, a.From.Local().Format("Mon 2 Jan 2006 15:04"),
		a.To.Local().Format("Mon 2 Jan 2006 15:04 MST"), a.By)
	cur := a.Currency
	if cur == "" {
		cur = "-"
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	who := "USER"
	if a.By == "team" {
		who = "TEAM"
	}
	fmt.Fprintf(w, "%s\tGPU-H\tBOOKED-IDLE\tRECLAIMED\tCOST (%s)\n", who, cur)
	for _, r := range append(append([]api.AccountingRow{}, a.Rows...), a.Total) {
		name := r.Name
		if r.Email != "" {
			name = r.Email
		}
		fmt.Fprintf(w, "%s\t%.2f\t%.2f\t%.2f\t%.2f\n", name, r.GPUHours, r.BookedIdleGPUHours, r.ReclaimedGPUHours, r.Cost)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(a.UnpricedModels) > 0 {
		fmt.Fprintf(out, "no rate for: %v (an admin sets cost_rates in the policy)\n", a.UnpricedModels)
	}
	return nil
}
