package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
)

// How Slurm's squeue, scancel and sacct name things, for the aliases of
// those names (gpusched squeue, scancel, sacct): people and scripts coming
// from a Slurm cluster read the same columns and states.

// slurmPartition is the one partition shown: there are none here.
const slurmPartition = "gpu"

// slurmStates are the states by Slurm's long names (sacct, squeue -t).
var slurmStates = map[string]string{
	api.JobQueued: "PENDING", api.JobScheduled: "CONFIGURING", api.JobAllocating: "CONFIGURING",
	api.JobRunning: "RUNNING", api.JobCompleted: "COMPLETED", api.JobFailed: "FAILED",
	api.JobCanceled: "CANCELLED", api.JobTimeout: "TIMEOUT", api.JobPreempted: "PREEMPTED",
}

// slurmCodes are the states by Slurm's short codes (squeue's ST).
var slurmCodes = map[string]string{
	api.JobQueued: "PD", api.JobScheduled: "CF", api.JobAllocating: "CF", api.JobRunning: "R",
	api.JobCompleted: "CD", api.JobFailed: "F", api.JobCanceled: "CA", api.JobTimeout: "TO", api.JobPreempted: "PR",
}

// slurmReasons are the scheduler's reason codes as Slurm's pending reasons.
var slurmReasons = map[string]string{
	"no_capacity": "Resources", "fragmented": "Resources", "preempting": "Resources",
	"no_matching_gpu": "BadConstraints", "user_quota": "QOSMaxGRESPerUser", "team_quota": "AssocGrpGRES",
	"behind_higher": "Priority", "reserved_for_head": "Priority", "booked": "Reservation",
	"paused": "PartitionDown", "dependency": "Dependency", "array_limit": "JobArrayTaskLimit",
}

// slurmReason is a pending job's reason as squeue shows it: "(Priority)".
func slurmReason(j api.Job) string {
	if r, ok := slurmReasons[j.ReasonCode]; ok {
		return "(" + r + ")"
	}
	return "(None)"
}

// slurmUser is the user as Slurm names one: the email's local part.
func slurmUser(email string) string {
	name, _, _ := strings.Cut(email, "@")
	return name
}

// slurmDuration is a time as Slurm prints one: M:SS, H:MM:SS or
// D-HH:MM:SS.
func slurmDuration(d time.Duration) string {
	s := int64(max(d, 0) / time.Second)
	days, h, m, sec := s/86400, s/3600%24, s/60%60, s%60
	switch {
	case days > 0:
		return fmt.Sprintf("%d-%02d:%02d:%02d", days, h, m, sec)
	case h > 0:
		return fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%d:%02d", m, sec)
}

// elapsed is how long j has run: until it ended, else until now.
func elapsed(j api.Job, now time.Time) time.Duration {
	if j.StartedAt == nil {
		return 0
	}
	if j.EndedAt != nil {
		return j.EndedAt.Sub(*j.StartedAt)
	}
	return now.Sub(*j.StartedAt)
}

// slurmExitCode is sacct's ExitCode, "code:signal": a process killed by a
// signal (exit code 128+N) shows 0:N.
func slurmExitCode(j api.Job) string {
	switch {
	case j.ExitCode == nil:
		return "0:0"
	case *j.ExitCode > 128 && *j.ExitCode < 160 && strings.Contains(j.FailureReason, "killed by"):
		return "0:" + strconv.Itoa(*j.ExitCode-128)
	}
	return strconv.Itoa(*j.ExitCode) + ":0"
}

// slurmJobID is a job's id as Slurm shows it: an array's task as
// ARRAY_TASK, an array's entry in the queue as ARRAY_[SPEC].
func slurmJobID(j api.Job) string {
	switch {
	case j.Array != nil:
		return queueID(j)
	case j.ArrayJobID != nil && j.ArrayTaskID != nil:
		return fmt.Sprintf("%d_%d", *j.ArrayJobID, *j.ArrayTaskID)
	}
	return strconv.FormatInt(j.ID, 10)
}

// jobDetail is what GET /api/v1/jobs/{id} says of a job that these
// commands read: the job, and its GPUs by node.
type jobDetail struct {
	api.Job
	GPUs []api.AllocatedGPU `json:"gpus"`
}

// getJob reads job id.
func getJob(ctx context.Context, c *apiclient.Client, id string) (*jobDetail, error) {
	var out jobDetail
	if err := c.Do(ctx, "GET", "/api/v1/jobs/"+id, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// nodesOf are the nodes of a job's GPUs, in order, once each.
func nodesOf(gpus []api.AllocatedGPU) []string {
	var out []string
	for _, g := range gpus {
		if len(out) == 0 || out[len(out)-1] != g.Node {
			out = append(out, g.Node)
		}
	}
	return out
}

// truncate cuts s to n runes, as squeue's fixed columns do.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
