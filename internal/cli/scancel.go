package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

func newScancelCmd() *cobra.Command {
	var me bool
	var users, states, name string
	cmd := &cobra.Command{
		Use:   "scancel [ID|ID_TASK|ID_[TASKS]…] [--me] [-u USER] [-t STATE] [-n NAME]",
		Short: "Cancel jobs as Slurm's scancel does: by id, or every job of a user (-u, --me), state (-t) or name (-n)",
		Long: `Cancel jobs as Slurm's scancel does, silently unless something fails. IDs are job ids (an
array's id cancels every task left), ARRAY_TASK or ARRAY_[TASKS]. Without ids, -u USER (email
or the part before @), --me, -t STATE (PENDING, RUNNING…) and -n NAME pick the running and
pending jobs to cancel; members may cancel only their own.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			refs := args
			for _, ref := range refs {
				if !cancelRef.MatchString(ref) {
					return fmt.Errorf("%q is not a job id, ARRAY_TASK or ARRAY_[TASKS] (\"123\", \"123_4\", \"123_[1-3,7]\")", ref)
				}
			}
			if len(refs) == 0 {
				if !me && users == "" && states == "" && name == "" {
					return errors.New("no job given: give ids, or pick jobs with -u USER, --me, -t STATE or -n NAME")
				}
				q, err := c.Queue(cmd.Context(), me)
				if err != nil {
					return err
				}
				keep := squeueFilter(users, "", states)
				for _, j := range append(q.RunningJobs, q.QueuedJobs...) {
					if keep(j) && (name == "" || j.Name == name) {
						refs = append(refs, scancelRef(j))
					}
				}
			}
			failed := false
			for _, ref := range refs {
				if _, err := c.CancelRef(cmd.Context(), ref); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "scancel: error: Kill job error on job id %s: %v\n", ref, err)
					failed = true
				}
			}
			if failed {
				return ExitCode(1)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&me, "me", false, "my jobs")
	f.StringVarP(&users, "user", "u", "", "these users' jobs (email or the part before @), comma-separated")
	f.StringVarP(&states, "state", "t", "", "jobs in these states: PENDING (PD), RUNNING (R), CONFIGURING (CF)")
	f.StringVarP(&name, "name", "n", "", "jobs of this name")
	return cmd
}

// scancelRef names a queue entry to cancel: an array entry is its array.
func scancelRef(j api.Job) string {
	if j.Array != nil {
		return strconv.FormatInt(j.Array.ID, 10)
	}
	return strconv.FormatInt(j.ID, 10)
}
