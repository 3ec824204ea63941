package handlers

import (
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// lastExit is the exit code of the job's last run that ended: none while a
// run is under way (a job requeued after a preemption keeps its previous
// run's until it starts again).
func lastExit(j *models.Job) *int {
	switch j.State {
	case models.JobScheduled, models.JobAllocating, models.JobRunning:
		return nil
	}
	return j.ExitCode
}

// priorityName is priority p's name ("high"), "" for none.
func priorityName(p int) string {
	if !api.Priority(p).Valid() {
		return ""
	}
	return api.Priority(p).String()
}

// jobJSON shapes j for the API; owner is the owner's email.
func jobJSON(j *models.Job, owner string, now time.Time) api.Job {
	out := api.Job{
		ID: j.ID, ClientRef: j.ClientRef, Name: j.Name, User: owner, State: j.State, Priority: j.Priority,
		PriorityName: priorityName(j.Priority), RequestedGPUs: j.GPUCount, GPUModel: j.GPUModel,
		AllowMultiNode: j.AllowMultiNode, Preemptible: j.Preemptible, Executor: j.Executor, Command: j.Command,
		Workdir: j.Workdir, Env: j.Env, JobType: j.JobType, EstimatedDurationS: j.EstimatedDurationS, TimeLimitS: j.TimeLimitS,
		QueuedAt: j.SubmittedAt, ScheduledAt: j.ScheduledAt, StartedAt: j.StartedAt, EndedAt: j.EndedAt,
		LeaseExpiresAt: j.LeaseExpiresAt, LeaseTTLS: j.LeaseTTLS, LeaseConfirmedAt: j.LeaseConfirmedAt, ExitCode: j.ExitCode, FailureReason: j.FailureReason,
		Position: j.QueuePosition, Reason: j.PendingReason, ReasonCode: j.PendingCode, EstimatedStartTime: j.EstimatedStartAt,
		Checkpoint: j.Checkpoint, AttainedGPUHours: j.AttainedGPUS / 3600, WaitsFor: waitsForJSON(j.WaitsFor),
		ArrayJobID: j.ArrayJobID, ArrayTaskID: j.ArrayTaskID, GPUShare: j.GPUShare, GPUMemoryMiB: j.ShareMemoryMiB,
	}
	if j.Checkpoint {
		out.StopGraceS = j.StopGraceS
	}
	if j.Nodes > 1 {
		out.Nodes, out.GPUsPerNode = j.Nodes, j.GPUCount/j.Nodes
	}
	out.ExitCode = lastExit(j)
	if j.GPUMemoryMiB != nil {
		out.MemoryGB = float64(*j.GPUMemoryMiB) / 1024
	}
	if end, ok := expectedEnd(j); ok {
		out.ExpectedEndAt = &end
	}
	if j.EstimatedStartAt != nil && j.State == models.JobQueued {
		w := max(j.EstimatedStartAt.Sub(now).Seconds(), 0)
		out.EstimatedWaitTime = &w
	}
	return out
}

// expectedEnd is when a job that started is expected to end: by its
// estimate, and at the latest at its time limit.
func expectedEnd(j *models.Job) (time.Time, bool) {
	if j.StartedAt == nil {
		return time.Time{}, false
	}
	var d int64
	switch {
	case j.EstimatedDurationS != nil && (j.TimeLimitS == nil || *j.EstimatedDurationS < *j.TimeLimitS):
		d = *j.EstimatedDurationS
	case j.TimeLimitS != nil:
		d = *j.TimeLimitS
	default:
		return time.Time{}, false
	}
	return j.StartedAt.Add(time.Duration(d) * time.Second), true
}
