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

func newSqueueCmd() *cobra.Command {
	var me, noHeader bool
	var users, ids, states string
	cmd := &cobra.Command{
		Use:   "squeue [--me] [-u USER[,USER]] [-j ID[,ID]] [-t STATE[,STATE]] [-h]",
		Short: "The queue in Slurm's squeue columns: JOBID PARTITION NAME USER ST TIME NODES NODELIST(REASON)",
		Long: `The queue in Slurm's squeue shape, for muscle memory and scripts written for Slurm: one line
per running or pending job (an array's running tasks one by one as ARRAY_TASK, its pending
tasks as one line, ARRAY_[SPEC]); running jobs
show their nodes, pending ones Slurm's reason ((Priority), (Resources), (Dependency)…).
gpusched queue shows more: places, expected starts and the scheduler's reasons in words.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			q, err := c.QueueTasks(cmd.Context(), me)
			if err != nil {
				return err
			}
			keep := squeueFilter(users, ids, states)
			w := cmd.OutOrStdout()
			if !noHeader {
				fmt.Fprintf(w, "%18s %9s %8s %8s %2s %10s %6s %s\n", "JOBID", "PARTITION", "NAME", "USER", "ST", "TIME", "NODES", "NODELIST(REASON)")
			}
			now := time.Now()
			for _, j := range append(q.RunningJobs, q.QueuedJobs...) {
				if !keep(j) {
					continue
				}
				nodes, where := "1", slurmReason(j)
				if j.State != api.JobQueued {
					if d, err := getJob(cmd.Context(), c, strconv.FormatInt(j.ID, 10)); err == nil && len(d.GPUs) > 0 {
						list := nodesOf(d.GPUs)
						nodes, where = strconv.Itoa(len(list)), strings.Join(list, ",")
					}
				}
				fmt.Fprintf(w, "%18s %9s %8s %8s %2s %10s %6s %s\n", slurmJobID(j), slurmPartition, truncate(j.Name, 8),
					truncate(slurmUser(j.User), 8), slurmCodes[j.State], slurmDuration(elapsed(j, now)), nodes, where)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&me, "me", false, "only my jobs")
	f.StringVarP(&users, "user", "u", "", "only these users' jobs (email or the part before @), comma-separated")
	f.StringVarP(&ids, "jobs", "j", "", "only these jobs (ids, or an array's id), comma-separated")
	f.StringVarP(&states, "states", "t", "", "only jobs in these states: PENDING (PD), RUNNING (R), CONFIGURING (CF), comma-separated")
	f.BoolVarP(&noHeader, "noheader", "h", false, "no header line")
	f.Bool("help", false, "help for squeue") // -h is Slurm's --noheader
	return cmd
}

// squeueFilter is squeue's -u, -j and -t: which entries to show.
func squeueFilter(users, ids, states string) func(api.Job) bool {
	set := func(list string, norm func(string) string) map[string]bool {
		if list == "" {
			return nil
		}
		out := map[string]bool{}
		for _, s := range strings.Split(list, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out[norm(s)] = true
			}
		}
		return out
	}
	us := set(users, strings.ToLower)
	js := set(ids, func(s string) string { return s })
	ss := set(states, strings.ToUpper)
	return func(j api.Job) bool {
		if us != nil && !us[strings.ToLower(j.User)] && !us[strings.ToLower(slurmUser(j.User))] {
			return false
		}
		if js != nil {
			id := strconv.FormatInt(j.ID, 10)
			array := ""
			if j.Array != nil {
				array = strconv.FormatInt(j.Array.ID, 10)
			}
			if !js[id] && !js[array] {
				return false
			}
		}
		if ss != nil && !ss[slurmStates[j.State]] && !ss[slurmCodes[j.State]] {
			return false
		}
		return true
	}
}
