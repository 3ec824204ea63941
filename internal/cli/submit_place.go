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

// placeWait bounds how long submit waits for the scheduler to place a new
// job (a pass runs on every submission; it takes milliseconds).
const placeWait = 3 * time.Second

// placed is a job as its first scheduling pass left it.
type placed struct {
	api.Job
	GPUs []api.AllocatedGPU `json:"gpus"`
}

// placeOf asks for the job until the scheduler has given it a place in
// the queue or started it, for at most placeWait; nil when it did neither
// (the answer says where to look).
func placeOf(ctx context.Context, c *apiclient.Client, job *api.Job) *placed {
	ctx, cancel := context.WithTimeout(ctx, placeWait)
	defer cancel()
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		var p placed
		if err := c.Do(ctx, "GET", "/api/v1/jobs/"+strconv.FormatInt(job.ID, 10), nil, &p); err == nil &&
			(p.Position != nil || p.State != api.JobQueued) {
			return &p
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// submitted is submit's line: the id, the place in the queue (or where it
// runs), what it asked for.
func submitted(job *api.Job, p *placed) string {
	what := askWords(*job) + ", " + job.PriorityName + " priority"
	switch {
	case p == nil:
		return fmt.Sprintf("job %d queued (%s); its place is not known yet: gpusched queue shows it", job.ID, what)
	case p.Position != nil:
		s := fmt.Sprintf("job %d queued: place %d in the queue (%s)", job.ID, *p.Position, what)
		if p.Reason != "" {
			s += "\n  waiting: " + p.Reason
		}
		return s
	case len(p.GPUs) > 0:
		return fmt.Sprintf("job %d %s on %s (%s)", job.ID, p.State, gpuPlaces(p.GPUs), what)
	}
	return fmt.Sprintf("job %d %s (%s)", job.ID, p.State, what)
}

// gpuPlaces names GPUs by node and index: "gpu-a GPUs 0,1", or several nodes.
func gpuPlaces(gpus []api.AllocatedGPU) string {
	var nodes []string
	idx := map[string][]string{}
	for _, g := range gpus {
		if _, ok := idx[g.Node]; !ok {
			nodes = append(nodes, g.Node)
		}
		idx[g.Node] = append(idx[g.Node], strconv.Itoa(g.Index))
	}
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = fmt.Sprintf("%s GPU%s %s", n, plural(len(idx[n])), strings.Join(idx[n], ","))
	}
	return strings.Join(parts, " and ")
}
