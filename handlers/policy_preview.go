package handlers

import (
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// previewRows caps each list of the policy preview.
const previewRows = 100

// preview lists what plan would start and the order of the jobs left waiting.
func preview(snap scheduler.Snapshot, plan scheduler.Plan, loc *time.Location) *views.PolicyPreview {
	jobs := make(map[int64]scheduler.Job, len(snap.Pending))
	for _, j := range snap.Pending {
		jobs[j.ID] = j
	}
	out := &views.PolicyPreview{}
	for i, s := range plan.Starts {
		if i == previewRows {
			break
		}
		note := "starts now"
		if s.Backfilled {
			note = "backfilled"
		}
		out.Starts = append(out.Starts, views.PreviewRow{Position: i + 1, JobID: s.JobID, Name: jobs[s.JobID].Name, GPUs: len(s.GPUIDs), Note: note})
	}
	for i, e := range plan.Pending {
		if i == previewRows {
			break
		}
		row := views.PreviewRow{Position: e.Position, JobID: e.JobID, Name: jobs[e.JobID].Name, GPUs: jobs[e.JobID].GPUCount, Note: e.Reason, ETA: "unknown"}
		if e.Standing != "" { // attained-service policies: "GPU-time level 2 of 4: has had 38 GPU-h"
			row.Note += " (" + e.Standing + ")"
		}
		if !e.EstimatedStart.IsZero() {
			row.ETA = localtime.When(e.EstimatedStart, snap.Now, loc) + " (" + localtime.Relative(e.EstimatedStart, snap.Now) + ")"
		}
		out.Waiting = append(out.Waiting, row)
	}
	return out
}
