package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// bookingsSubcommands are the calendar's edit, end, import and export.
func bookingsSubcommands() []*cobra.Command {
	return []*cobra.Command{newBookingsEditCmd(), newBookingsEndCmd(), newBookingsImportCmd(), newBookingsExportCmd(), newBookingsSeriesCmd()}
}

// printBooking writes one booking's line, times in the local zone.
func printBooking(w io.Writer, verb string, b *api.Booking) {
	fmt.Fprintf(w, "booking %d %s: %s, %s – %s (%s)", b.ID, verb, bookingGPUs(*b), b.StartsAt.Local().Format("Mon 2 Jan 15:04"),
		b.EndsAt.Local().Format("Mon 2 Jan 15:04 MST"), b.State)
	if b.Note != "" {
		fmt.Fprintf(w, " — %s", b.Note)
	}
	fmt.Fprintln(w)
}

func newBookingsEditCmd() *cobra.Command {
	var from, until, note, ids string
	var length time.Duration
	var gpus int
	cmd := &cobra.Command{
		Use:   "edit ID [--from T] [--until T | --for D] [-g N | --gpu-ids sim-node-1:4,5] [--note X]",
		Short: "Change a booking: extend, shorten, move, the GPUs or the note (yours; admins: any)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a booking id", args[0])
			}
			var p api.BookingPatch
			if from != "" {
				t, err := flagTime("from", from)
				if err != nil {
					return err
				}
				p.StartsAt = &t
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			switch {
			case until != "" && length != 0:
				return fmt.Errorf("give --until or --for, not both")
			case until != "":
				t, err := flagTime("until", until)
				if err != nil {
					return err
				}
				p.EndsAt = &t
			case length > 0:
				start := p.StartsAt
				if start == nil {
					b, err := c.GetBooking(cmd.Context(), id)
					if err != nil {
						return err
					}
					start = &b.StartsAt
				}
				end := start.Add(length)
				p.EndsAt = &end
			}
			if cmd.Flags().Changed("gpus") {
				p.GPUCount = &gpus
			}
			if cmd.Flags().Changed("gpu-ids") {
				list := api.GPURefs{}
				if strings.TrimSpace(ids) != "" {
					if list, err = api.ParseGPURefs(ids); err != nil {
						return fmt.Errorf("--gpu-ids: %w", err)
					}
				}
				p.GPUIDs = &list
			}
			if cmd.Flags().Changed("note") {
				p.Note = &note
			}
			b, err := c.EditBooking(cmd.Context(), id, p)
			if err != nil {
				return withFlagNames(err, bookingFlags)
			}
			printBooking(cmd.OutOrStdout(), "changed", b)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "new start: "+whenHelp)
	cmd.Flags().StringVar(&until, "until", "", "new end, like --from")
	cmd.Flags().DurationVar(&length, "for", 0, "new length from the (new) start instead of --until, e.g. 10h")
	cmd.Flags().IntVarP(&gpus, "gpus", "g", 0, "new number of GPUs")
	cmd.Flags().StringVar(&ids, "gpu-ids", "", "name these GPUs instead, as node:index (sim-node-1:4,5) or GPU ids; empty: back to a count")
	cmd.Flags().StringVar(&note, "note", "", "new note")
	return cmd
}

func newBookingsEndCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "end ID [ID…]",
		Short: "End active bookings now (done early): the GPUs are free at once and the next queued job starts",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			return eachID(args, "booking", func(id int64) error {
				b, err := c.EndBooking(cmd.Context(), id)
				if err == nil {
					printBooking(cmd.OutOrStdout(), "ended", b)
				}
				return err
			})
		},
	}
}
