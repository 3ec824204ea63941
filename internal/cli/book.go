package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

func newBookCmd() *cobra.Command {
	var req api.BookingRequest
	var from, until, ids string
	var length time.Duration
	cmd := &cobra.Command{
		Use:   "book (-g N | --gpu-share 0.5) [--gpu-type T | --gpu-ids sim-node-1:4,5] --from TIME (--until TIME | --for 8h)",
		Short: "Book GPUs for a time window in the calendar",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if from == "" {
				return fmt.Errorf("--from is required")
			}
			if req.StartsAt, err = flagTime("from", from); err != nil {
				return err
			}
			switch {
			case until != "" && length != 0:
				return fmt.Errorf("give --until or --for, not both")
			case until != "":
				if req.EndsAt, err = flagTime("until", until); err != nil {
					return err
				}
			case length > 0:
				req.EndsAt = req.StartsAt.Add(length)
			default:
				return fmt.Errorf("--until or --for is required")
			}
			if strings.TrimSpace(ids) != "" {
				if req.GPUIDs, err = api.ParseGPURefs(ids); err != nil {
					return fmt.Errorf("--gpu-ids: %w", err)
				}
			}
			if (len(req.GPUIDs) > 0 || req.GPUShare != 0) && !cmd.Flags().Changed("gpus") {
				req.GPUCount = 0
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			b, err := c.Book(cmd.Context(), req)
			if err != nil {
				return withFlagNames(err, bookingFlags)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "booking %d: %s, %s – %s\n", b.ID, bookingGPUs(*b),
				b.StartsAt.Local().Format("Mon 2 Jan 15:04"), b.EndsAt.Local().Format("Mon 2 Jan 15:04 MST"))
			return nil
		},
	}
	cmd.Flags().IntVarP(&req.GPUCount, "gpus", "g", 1, "how many GPUs")
	cmd.Flags().StringVar(&req.GPUModel, "gpu-type", "", "GPU model, e.g. H100, or a MIG profile to book slices, e.g. 1g.10gb (default: any whole GPU)")
	deprecatedAlias(cmd, "type", "gpu-type")
	cmd.Flags().Float64Var(&req.GPUShare, "gpu-share", 0, "book this fraction of one shared GPU instead, e.g. 0.5 (of any shared GPU of --gpu-type, or of the one --gpu-ids names)")
	cmd.Flags().StringVar(&ids, "gpu-ids", "", "book these GPUs instead, as node:index (sim-node-1:4,5 or sim-node-1:4,sim-node-2:0) or GPU ids")
	cmd.Flags().StringVar(&from, "from", "", "start: "+whenHelp)
	cmd.Flags().StringVar(&until, "until", "", "end, like --from")
	cmd.Flags().DurationVar(&length, "for", 0, "length instead of --until, e.g. 8h")
	cmd.Flags().StringVar(&req.Note, "note", "", "what the booking is for")
	return cmd
}

func newBookingsCmd() *cobra.Command {
	var mine, asJSON bool
	var days int
	cmd := &cobra.Command{
		Use:   "bookings [--mine] [--days N]",
		Short: "List the calendar's bookings and holds from now on",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if days < 1 || days > 366 {
				return fmt.Errorf("--days must be 1–366")
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			now := time.Now()
			bs, err := c.Bookings(cmd.Context(), now, now.AddDate(0, 0, days), mine)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(bs)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tKIND\tUSER\tGPUS\tFROM\tUNTIL\tSTATE\tNOTE")
			for _, b := range bs {
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", b.ID, b.Kind, b.User, bookingGPUs(b),
					b.StartsAt.Local().Format("Mon 2 Jan 15:04 MST"), b.EndsAt.Local().Format("Mon 2 Jan 15:04 MST"), b.State, b.Note)
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&mine, "mine", false, "only my bookings")
	cmd.Flags().IntVar(&days, "days", 7, "how many days ahead")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cancel := &cobra.Command{
		Use:   "cancel ID [ID…]",
		Short: "Cancel bookings (yours; admins: any)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			return eachID(args, "booking", func(id int64) error {
				b, err := c.CancelBooking(cmd.Context(), id)
				if err == nil {
					fmt.Fprintf(cmd.OutOrStdout(), "booking %d %s\n", b.ID, b.State)
				}
				return err
			})
		},
	}
	cmd.AddCommand(cancel)
	cmd.AddCommand(bookingsSubcommands()...) // calendar: edit, end, import, export
	return cmd
}

// shareOf says what a booking of part of a shared GPU claims: "0.5 of
// sim-node-1:2", "0.5 of a shared H100".
func shareOf(b api.Booking) string {
	f := strconv.FormatFloat(b.GPUShare, 'g', 4, 64)
	switch {
	case len(b.GPUNames) > 0:
		return f + " of " + b.GPUNames[0]
	case b.GPUModel != "":
		return f + " of a shared " + b.GPUModel
	}
	return f + " of a shared GPU"
}

// bookingGPUs says what a booking claims: "2 × H100", "2 × any" or
// "sim-node-1:4,5" (ids, from a server that does not name them).
func bookingGPUs(b api.Booking) string {
	if b.GPUShare > 0 {
		return shareOf(b)
	}
	if len(b.GPUNames) > 0 {
		refs, err := api.ParseGPURefs(strings.Join(b.GPUNames, ","))
		if err != nil {
			return strings.Join(b.GPUNames, ",")
		}
		return refs.String()
	}
	if len(b.GPUIDs) > 0 {
		ids := make([]string, len(b.GPUIDs))
		for i, id := range b.GPUIDs {
			ids[i] = strconv.FormatInt(id, 10)
		}
		return "GPUs " + strings.Join(ids, ",")
	}
	if b.GPUModel == "" {
		return fmt.Sprintf("%d × any", b.GPUCount)
	}
	return fmt.Sprintf("%d × %s", b.GPUCount, b.GPUModel)
}
