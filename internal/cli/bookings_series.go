package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// weekdayNames are the days of a series, Monday first.
var weekdayNames = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// parseDays reads "mon-fri", "mon,wed,fri" or "tue".
func parseDays(s string) ([]string, error) {
	var out []string
	for part := range strings.SplitSeq(strings.ToLower(s), ",") {
		part = strings.TrimSpace(part)
		from, to, isRange := strings.Cut(part, "-")
		i, j := dayIndex(from), dayIndex(to)
		switch {
		case part == "":
			continue
		case i < 0 || (isRange && j < 0):
			return nil, fmt.Errorf("--days: %q is not a day or a range like mon-fri", part)
		case !isRange:
			out = append(out, weekdayNames[i])
		default:
			for k := i; ; k = (k + 1) % 7 {
				out = append(out, weekdayNames[k])
				if k == j {
					break
				}
			}
		}
	}
	return out, nil
}

func dayIndex(s string) int {
	for i, d := range weekdayNames {
		if len(s) >= 3 && strings.HasPrefix(s, d) {
			return i
		}
	}
	return -1
}

func newBookingsSeriesCmd() *cobra.Command {
	var req api.SeriesRequest
	var days string
	cmd := &cobra.Command{
		Use:   "series -g N [--gpu-type T] --first DAY --last DAY [--days mon-fri] --start 09:00 --end 18:00 [--tz ZONE]",
		Short: "Book a recurring series (e.g. every weekday 09:00–18:00 for two weeks); all occurrences or none",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if req.Days, err = parseDays(days); err != nil {
				return err
			}
			if req.TimeZone == "" {
				req.TimeZone = localZoneName()
			}
			now := clock()
			if loc, err := time.LoadLocation(req.TimeZone); err == nil {
				now = now.In(loc)
			}
			for _, d := range []struct {
				flag string
				day  *string
			}{{"first", &req.FirstDay}, {"last", &req.LastDay}} {
				if *d.day == "" {
					continue
				}
				if *d.day, err = parseDay(*d.day, now); err != nil {
					return fmt.Errorf("--%s: %w", d.flag, err)
				}
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			s, err := c.CreateSeries(cmd.Context(), req)
			if err != nil {
				return withFlagNames(err, seriesFlags)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "series %d: %d occurrence%s\n", s.SeriesID, len(s.Bookings), plural(len(s.Bookings)))
			for i := range s.Bookings {
				printBooking(cmd.OutOrStdout(), "booked", &s.Bookings[i])
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&req.GPUCount, "gpus", "g", 1, "how many GPUs")
	cmd.Flags().StringVar(&req.GPUModel, "gpu-type", "", "GPU model, e.g. H100 (default: any)")
	deprecatedAlias(cmd, "type", "gpu-type")
	cmd.Flags().StringVar(&req.FirstDay, "first", "", "first day: today, tomorrow, +7d or 2026-11-30")
	cmd.Flags().StringVar(&req.LastDay, "last", "", "last day (inclusive)")
	cmd.Flags().StringVar(&days, "days", "", "weekdays: mon-fri, mon,wed (default: the first day's)")
	cmd.Flags().StringVar(&req.StartTime, "start", "09:00", "local start time")
	cmd.Flags().StringVar(&req.EndTime, "end", "18:00", "local end time (at or before the start: the next day)")
	cmd.Flags().StringVar(&req.TimeZone, "tz", "", "time zone of the times (default: TZ or the system's)")
	cmd.Flags().StringVar(&req.Note, "note", "", "what the bookings are for")
	cancel := &cobra.Command{
		Use:   "cancel SERIES_ID",
		Short: "Cancel every occurrence of a series that has not ended",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a series id", args[0])
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			n, err := c.CancelSeries(cmd.Context(), id)
			if err == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "series %d: %d occurrence%s canceled\n", id, n, plural(n))
			}
			return err
		},
	}
	cmd.AddCommand(cancel)
	return cmd
}
