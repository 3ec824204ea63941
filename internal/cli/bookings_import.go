package cli

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

func newBookingsImportCmd() *cobra.Command {
	var o api.ImportOptions
	cmd := &cobra.Command{
		Use:   "import FILE.csv [--dry-run] [--tz ZONE] [--create-users] [--skip-invalid]",
		Short: "Import the bookings sheet (admins): CSV email,gpus,gpu_model,node,gpu_ids,start,end,note",
		Long: `Import bookings from a sheet, one booking a row, with the header
email,gpus,gpu_model,node,gpu_ids,start,end,note. start and end are local times of
--tz (default: this machine's zone) like "2026-11-23 09:00", or carry an offset.
A row asks for gpus GPUs (of gpu_model, on node) or names them in gpu_ids
(indexes on node, e.g. "0;1"). Nothing is written unless every row is valid
(or --skip-invalid); rows imported before are reported, not duplicated.
A dry run exits with status 1 when the import itself would be refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			if o.TZ == "" {
				o.TZ = localZoneName()
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			rep, err := c.ImportBookings(cmd.Context(), f, o)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ROW\tWHAT\tUSER\tGPUS\tFROM\tUNTIL\tWHY")
			for _, r := range rep.Rows {
				what := r.Status
				switch {
				case r.Status == "create" && !rep.Written:
					what = "would create"
				case r.Status == "create":
					what = fmt.Sprintf("created #%d", r.BookingID)
				case r.Status == "exists":
					what = "already there"
				}
				from, until := "", ""
				if !r.StartsAt.IsZero() {
					from, until = r.StartsAt.Local().Format("Mon 2 Jan 15:04"), r.EndsAt.Local().Format("Mon 2 Jan 15:04 MST")
				}
				why := r.Reason
				if r.NewUser && why == "" {
					why = "new member " + r.Email
				}
				if r.Warning != "" {
					why = strings.TrimPrefix(why+"; ", "; ") + "warning: " + r.Warning
				}
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Row, what, r.Email, r.GPUs, from, until, why)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if rep.Warnings > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%d row%s take%s its owner over the live-booking limit members are held to; an admin's import is exempt\n",
					rep.Warnings, plural(rep.Warnings), map[bool]string{true: "s"}[rep.Warnings == 1])
			}
			switch {
			case rep.DryRun && rep.Invalid > 0 && !o.SkipInvalid:
				fmt.Fprintf(cmd.OutOrStdout(), "dry run: %d to create, %d already imported, %d invalid; nothing written\n", rep.Create, rep.Existing, rep.Invalid)
				return fmt.Errorf("the import would be refused: %d of %d rows are invalid; fix them, or import with --skip-invalid to write the %d valid ones",
					rep.Invalid, len(rep.Rows), rep.Create)
			case rep.DryRun:
				fmt.Fprintf(cmd.OutOrStdout(), "dry run: %d to create, %d already imported, %d invalid; nothing written\n", rep.Create, rep.Existing, rep.Invalid)
			case rep.Written:
				fmt.Fprintf(cmd.OutOrStdout(), "imported %d booking%s (%d already there, %d invalid row%s skipped)\n",
					rep.Create, plural(rep.Create), rep.Existing, rep.Invalid, plural(rep.Invalid))
			case rep.Error != "":
				return fmt.Errorf("%s", rep.Error)
			default:
				fmt.Fprintf(cmd.OutOrStdout(), "nothing to import (%d already there)\n", rep.Existing)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "report per row what would be created or why not; write nothing")
	cmd.Flags().StringVar(&o.TZ, "tz", "", "time zone of start and end without an offset (default: TZ or the system's)")
	cmd.Flags().BoolVar(&o.CreateUsers, "create-users", false, "make unknown emails members")
	cmd.Flags().BoolVar(&o.SkipInvalid, "skip-invalid", false, "import the valid rows even if some are invalid")
	return cmd
}

// localZoneName is the IANA name of the local zone (TZ, else the system's;
// "UTC" when it has no name the server knows).
func localZoneName() string {
	if tz := os.Getenv("TZ"); tz != "" {
		if _, err := time.LoadLocation(tz); err == nil {
			return tz
		}
	}
	if p, err := os.Readlink("/etc/localtime"); err == nil {
		if i := strings.LastIndex(p, "zoneinfo/"); i >= 0 {
			return p[i+len("zoneinfo/"):]
		}
	}
	if n := time.Local.String(); n != "Local" {
		return n
	}
	return "UTC"
}
