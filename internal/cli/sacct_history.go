package cli

import (
	"fmt"
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
)

// sacctEndedLimit bounds how many ended jobs one sacct call lists.
const sacctEndedLimit = 1000

// sacctEnded reads the caller's jobs that ended at or after start (sacct's
// -S; empty: midnight today in the local zone) from the job history, as
// jobs sacct prints.
func sacctEnded(cmd *cobra.Command, c *apiclient.Client, start string) ([]api.Job, error) {
	now := time.Now()
	from := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	if start != "" {
		t, err := parseWhen(start, now)
		if err != nil {
			return nil, fmt.Errorf("-S %q: %w", start, err)
		}
		from = t
	}
	q := url.Values{"mine": {"true"}, "from": {from.UTC().Format(time.RFC3339)}}
	var out []api.Job
	for len(out) < sacctEndedLimit {
		q.Set("limit", "200")
		page, err := c.History(cmd.Context(), q)
		if err != nil {
			return nil, err
		}
		for _, h := range page.Jobs {
			out = append(out, sacctJob(h))
		}
		if page.NextCursor == "" {
			break
		}
		q.Set("cursor", page.NextCursor)
	}
	return out, nil
}

// sacctJob is an ended job of the history as the fields sacct prints:
// its elapsed time is the time it held GPUs, ending when it ended.
func sacctJob(h api.HistoryJob) api.Job {
	ended := h.EndedAt
	j := api.Job{ID: h.ID, Name: h.Name, State: h.State, ExitCode: h.ExitCode, FailureReason: h.FailureReason, EndedAt: &ended,
		ArrayJobID: h.ArrayJobID, ArrayTaskID: h.ArrayTaskID}
	if h.StartedAt != nil {
		started := ended.Add(-time.Duration(h.ElapsedSeconds * float64(time.Second)))
		j.StartedAt = &started
	}
	return j
}
