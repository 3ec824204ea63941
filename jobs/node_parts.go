package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A job placed on GPUs of several nodes runs as one part per node. The
// first part's start goes to its node; its agent chooses a free port and
// answers with its address, and each answered start queues the next part's
// (so every part knows MASTER_ADDR and MASTER_PORT). The job runs once every
// part has started. A part that cannot start, exits non-zero or is lost
// stops the others; the job ends once every part has, with the first
// failure (or as a stop asked of it decides).

// nodeGroups splits a job's GPUs (in node name, index order) by node: the
// parts, in rank order.
func nodeGroups(gpus []models.JobGPU) [][]models.JobGPU {
	var out [][]models.JobGPU
	for i, g := range gpus {
		if i == 0 || g.NodeID != gpus[i-1].NodeID {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], g)
	}
	return out
}

// setGPUs puts one part's GPUs in its start.
func setGPUs(s *api.StartJob, gpus []models.JobGPU) {
	s.GPUs, s.GPUUUIDs = nil, nil
	for _, g := range gpus {
		s.GPUs = append(s.GPUs, g.Index)
		s.GPUUUIDs = append(s.GPUUUIDs, g.UUID)
	}
}

// handParts queues the first part's start of a job placed on several nodes.
func handParts(ctx context.Context, tx *models.Tx, j *models.Job, start api.StartJob, groups [][]models.JobGPU, now time.Time) (models.Handover, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return models.Handover{}, fmt.Errorf("jobs: step secret of job %d: %w", j.ID, err)
	}
	part := &api.JobPart{StepSecret: hex.EncodeToString(secret)}
	for _, g := range groups {
		part.Nodes = append(part.Nodes, g[0].NodeName)
		part.NodeIDs = append(part.NodeIDs, g[0].NodeID)
		part.GPUs = append(part.GPUs, len(g))
	}
	start.Part = part
	setGPUs(&start, groups[0])
	cmd, err := models.EnqueueCommand(ctx, tx, part.NodeIDs[0], j.ID, models.CommandStart, start, now)
	if err != nil {
		return models.Handover{}, err
	}
	detail := fmt.Sprintf("sent to nodes %s, one part each (the first starts on %s)", strings.Join(part.Nodes, ", "), part.Nodes[0])
	return models.Handover{Taken: true, Detail: detail, StartCommandID: &cmd.ID}, nil
}

// runID is the run a part's start command belongs to.
func runID(c *models.NodeCommand, p *api.JobPart) int64 {
	if p.RunID != 0 {
		return p.RunID
	}
	return c.ID
}

// answerPartStart takes an agent's answer to part p's start command c of
// j's current run (the command is answered already).
func answerPartStart(ctx context.Context, lc *models.Lifecycle, tx *models.Tx, j *models.LockedJob, c *models.NodeCommand, p *api.JobPart, res api.CommandResult, now time.Time) error {
	run := runID(c, p)
	if !res.OK {
		return endPart(ctx, lc, tx, j, run, c, p, models.RunEnd{Refused: partSays(p, "could not start: "+res.Message)}, now)
	}
	if p.Rank == 0 && (res.MasterAddr == "" || res.MasterPort <= 0) {
		// An agent that predates multi-node jobs: stop what it started.
		if err := stopPart(ctx, tx, j.Job, c, "no rendezvous port", now); err != nil {
			return err
		}
		return endPart(ctx, lc, tx, j, run, c, p, models.RunEnd{Refused: partSays(p, "its agent chose no rendezvous port (upgrade gpusched node there)")}, now)
	}
	parts, err := models.RunParts(ctx, tx, j.ID, run)
	if err != nil {
		return err
	}
	if j.StopKind != models.StopNone || firstFailure(parts) != nil {
		// The run is ending: this part ends too, and no other starts.
		return stopPart(ctx, tx, j.Job, c, "the job is ending", now)
	}
	next := p.Rank + 1
	if next >= len(p.Nodes) {
		return lc.Started(ctx, tx, j, fmt.Sprintf("started on %d nodes (%s)", len(p.Nodes), strings.Join(p.Nodes, ", ")), now)
	}
	var s api.StartJob
	if err := json.Unmarshal(c.Payload, &s); err != nil || s.Part == nil {
		return fmt.Errorf("jobs: start command %d: not a part (%v)", c.ID, err)
	}
	if p.Rank == 0 {
		s.Part.RunID, s.Part.MasterAddr, s.Part.MasterPort, s.Part.StepPort = c.ID, res.MasterAddr, res.MasterPort, res.StepPort
	}
	s.Part.Rank = next
	gpus, err := models.JobGPUs(ctx, tx, j.ID)
	if err != nil {
		return err
	}
	var mine []models.JobGPU
	for _, g := range gpus {
		if g.NodeID == p.NodeIDs[next] {
			mine = append(mine, g)
		}
	}
	if len(mine) == 0 {
		return endPart(ctx, lc, tx, j, run, c, p, models.RunEnd{Refused: fmt.Sprintf("part %d: the job holds no GPUs on node %s", next, p.Nodes[next])}, now)
	}
	setGPUs(&s, mine)
	_, err = models.EnqueueCommand(ctx, tx, p.NodeIDs[next], j.ID, models.CommandStart, s, now)
	return err
}

// endPart records that part p (start command c) of j's run ended as e,
// and settles the run: a failure stops the other parts; once every part
// has ended, the job ends.
func endPart(ctx context.Context, lc *models.Lifecycle, tx *models.Tx, j *models.LockedJob, run int64, c *models.NodeCommand, p *api.JobPart, e models.RunEnd, now time.Time) error {
	failed := e.Refused != "" || e.Lost || (e.ExitCode == nil && !e.Stopped) || (e.ExitCode != nil && *e.ExitCode != 0)
	if failed && e.Refused == "" {
		e.Reason = partSays(p, runEndSays(e))
	}
	changed, err := models.EndPart(ctx, tx, c, models.PartEnd{Failed: failed, At: now, End: e})
	if err != nil || !changed {
		return err
	}
	return settleParts(ctx, lc, tx, j, run, now)
}

// settleParts stops the parts still running when one has failed, and ends
// job j once every part of its run has ended.
func settleParts(ctx context.Context, lc *models.Lifecycle, tx *models.Tx, j *models.LockedJob, run int64, now time.Time) error {
	parts, err := models.RunParts(ctx, tx, j.ID, run)
	if err != nil || len(parts) == 0 {
		return err
	}
	first := firstFailure(parts)
	if first != nil && j.StopKind == models.StopNone {
		if err := stopParts(ctx, tx, j.Job, parts, DefaultStopGrace, "failed", first.End.Reason+first.End.Refused, now); err != nil {
			return err
		}
		if parts, err = models.RunParts(ctx, tx, j.ID, run); err != nil {
			return err
		}
	}
	for _, c := range parts {
		if c.PartEnded() == nil {
			return nil // the run goes on until every part has ended
		}
	}
	// Every part queued has ended, so no answer will queue another: the
	// run is over, even if a part ended before the next one could start.
	zero := 0
	end := models.RunEnd{ExitCode: &zero}
	if p := parts[0].JobPart(); p != nil && len(parts) < len(p.Nodes) {
		end = models.RunEnd{Refused: fmt.Sprintf("part %d of %d ended before every part had started", len(parts)-1, len(p.Nodes))}
	}
	if first != nil {
		end = first.End
	}
	if j.StopKind != models.StopNone {
		end.Stopped = false
		for _, c := range parts {
			_, delivered, err := models.StopSent(ctx, tx, j.ID, c.ID)
			if err != nil {
				return err
			}
			end.Stopped = end.Stopped || delivered || c.State == models.CommandCanceled
		}
	}
	return lc.Finish(ctx, tx, j, end, now)
}

// firstFailure is the end of the part that failed first; nil when none has.
func firstFailure(parts []models.NodeCommand) *models.PartEnd {
	var first *models.PartEnd
	for _, c := range parts {
		if e := c.PartEnded(); e != nil && e.Failed && (first == nil || e.At.Before(first.At)) {
			first = e
		}
	}
	return first
}

// stopParts stops every part of a run that has not ended: a start its
// agent has not taken is withdrawn, the others get a stop command (once).
func stopParts(ctx context.Context, tx *models.Tx, j *models.Job, parts []models.NodeCommand, grace time.Duration, state, reason string, now time.Time) error {
	for i := range parts {
		c := &parts[i]
		if c.PartEnded() != nil {
			continue
		}
		if c.State == models.CommandPending && c.DeliveredAt == nil {
			if _, err := models.FinishCommand(ctx, tx, c, models.CommandCanceled, map[string]string{"reason": reason}, now); err != nil {
				return err
			}
			continue
		}
		queued, _, err := models.StopSent(ctx, tx, j.ID, c.ID)
		if err != nil || queued {
			return err
		}
		stop := api.StopJob{StartCommandID: c.ID, State: state, Reason: reason, GraceS: int(grace.Seconds())}
		if _, err := models.EnqueueCommand(ctx, tx, c.NodeID, j.ID, models.CommandStop, stop, now); err != nil {
			return err
		}
	}
	return nil
}

// stopPart stops the one part c, unless a stop of it was queued already.
func stopPart(ctx context.Context, tx *models.Tx, j *models.Job, c *models.NodeCommand, reason string, now time.Time) error {
	return stopParts(ctx, tx, j, []models.NodeCommand{*c}, DefaultStopGrace, "failed", reason, now)
}

// partSays puts which part it is before a sentence.
func partSays(p *api.JobPart, s string) string {
	return fmt.Sprintf("part %d of %d (node %s): %s", p.Rank, len(p.Nodes), p.Nodes[p.Rank], s)
}

// runEndSays is the sentence of a run's end, as the lifecycle would say it.
func runEndSays(e models.RunEnd) string {
	switch {
	case e.Reason != "":
		return e.Reason
	case e.Lost:
		return "lost on its node"
	case e.ExitCode == nil:
		return "ended without an exit code"
	case e.Signal != "":
		return fmt.Sprintf("killed by %s (exit code %d)", e.Signal, *e.ExitCode)
	}
	return fmt.Sprintf("exited with code %d", *e.ExitCode)
}
