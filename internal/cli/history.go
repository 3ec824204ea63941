package cli

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

func newHistoryCmd() *cobra.Command {
	var mine, asJSON bool
	var user, since, state, from, until string
	var limit int
	cmd := &cobra.Command{
		Use:   "history [--mine] [--since 7d] [--state failed] [--json]",
		Short: "Show jobs that ended (completed, failed, canceled, timeout), like sacct: exit code, elapsed, GPU-hours, GPUs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 || limit > 10000 {
				return fmt.Errorf("--limit must be 1–10000")
			}
			q := url.Values{}
			if mine {
				q.Set("mine", "true")
			}
			for k, v := range map[string]string{"user": user, "since": since, "state": state} {
				if v != "" {
					q.Set(k, v)
				}
			}
			for _, b := range []struct{ flag, param, val string }{{"from", "from", from}, {"until", "to", until}} {
				if b.val == "" {
					continue
				}
				t, err := parseWhen(b.val, time.Now())
				if err != nil {
					return fmt.Errorf("--%s: %w", b.flag, err)
				}
				q.Set(b.param, t.UTC().Format(time.RFC3339))
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			var jobs []api.HistoryJob
			for len(jobs) < limit {
				q.Set("limit", strconv.Itoa(min(limit-len(jobs), 200)))
				page, err := c.History(cmd.Context(), q)
				if err != nil {
					return err
				}
				jobs = append(jobs, page.Jobs...)
				if page.NextCursor == "" {
					break
				}
				q.Set("cursor", page.NextCursor)
			}
			if asJSON {
				if jobs == nil {
					jobs = []api.HistoryJob{}
				}
				return json.NewEncoder(cmd.OutOrStdout()).Encode(jobs)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tNAME\tUSER\tSTATE\tEXIT\tENDED\tELAPSED\tGPU-H\tGPUS\tRETRIES")
			for _, j := range jobs {
				exit := "-"
				if j.ExitCode != nil {
					exit = strconv.Itoa(*j.ExitCode)
				}
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%d\n", j.ID, orDashCLI(j.Name), j.User, j.State, exit,
					j.EndedAt.Local().Format("2006-01-02 15:04 MST"), elapsedCLI(j.ElapsedSeconds), j.GPUHours,
					orDashCLI(gpuList(j.GPUs)), j.Retries)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d job%s\n", len(jobs), plural(len(jobs)))
			return nil
		},
	}
	cmd.Flags().BoolVar(&mine, "mine", false, "only my jobs")
	cmd.Flags().StringVar(&user, "user", "", "only this user's jobs (email)")
	cmd.Flags().StringVar(&since, "since", "", "ended within this span back from now: 7d, 24h, 90m")
	cmd.Flags().StringVar(&state, "state", "", "completed, failed, canceled or timeout (several: failed,timeout)")
	cmd.Flags().StringVar(&from, "from", "", "ended at or after: \"2026-11-23 09:00\" (local time) or RFC 3339")
	cmd.Flags().StringVar(&until, "until", "", "ended before, like --from")
	cmd.Flags().IntVarP(&limit, "limit", "n", 50, "at most this many jobs, the latest first")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (the API's fields: times RFC 3339 UTC)")
	return cmd
}

// gpuList writes GPU names compactly: "sim-node-1:4,5".
func gpuList(names []string) string {
	refs, err := api.ParseGPURefs(strings.Join(names, ","))
	if err != nil || len(names) == 0 {
		return strings.Join(names, ",")
	}
	return refs.String()
}

// elapsedCLI writes seconds as sacct does: "1-02:03:04" past a day, else
// "02:03:04".
func elapsedCLI(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	days, h, m, sec := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	if days > 0 {
		return fmt.Sprintf("%d-%02d:%02d:%02d", days, h, m, sec)
	}
	return fmt.Sprintf("%02d:%02d:%02d", h, m, sec)
}

func orDashCLI(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
