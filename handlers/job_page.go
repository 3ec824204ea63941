package handlers

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// logTailBytes is how much of a job's output its page shows.
const logTailBytes = 64 << 10

// JobPage handles GET /jobs/{id}: the job's spec, live status (explanation
// while pending, GPUs, timeline), actions for its owner and admins, and
// the tail of its output. Every signed-in member may look at every job
// (the team sees the cluster); only the owner and admins act on it and
// read its output.
func (h *Handlers) JobPage(c echo.Context) error {
	d, err := h.jobView(c)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("Job #%d", d.ID)
	if d.Name != "" {
		title = fmt.Sprintf("%s (#%d)", d.Name, d.ID)
	}
	return render(c, http.StatusOK, views.JobPage(h.Page(c, title, "queue"), d))
}

// JobFragment handles GET /fragments/jobs/{id}: the live status.
func (h *Handlers) JobFragment(c echo.Context) error {
	d, err := h.jobView(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.JobLive(d))
}

// JobLogsFragment handles GET /fragments/jobs/{id}/logs: the tail of the
// output. Once the job has ended it answers 286, which stops htmx polling.
func (h *Handlers) JobLogsFragment(c echo.Context) error {
	id, err := jobID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	j, err := ownJob(ctx, h.DB.Bun, userOf(c), id)
	if err != nil {
		return err
	}
	l, err := h.jobLog(c, j)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	status := http.StatusOK
	if l.Done {
		status = 286 // htmx: stop polling
	}
	return render(c, status, views.JobLogText(l))
}

// jobLog is the tail of the output of the part of j the page asks for
// (?part=N; logPart), with the parts there are to choose from.
func (h *Handlers) jobLog(c echo.Context, j *models.Job) (views.JobLogView, error) {
	part, err := logPart(c)
	if err != nil {
		return views.JobLogView{}, err
	}
	page, nodes, err := models.PartLogTail(c.Request().Context(), h.DB.Bun, j.ID, part, logTailBytes)
	if err != nil {
		return views.JobLogView{}, err
	}
	parts := partsOf(j, nodes, nodes != nil)
	if err := checkPart(j, part, parts); err != nil {
		return views.JobLogView{}, err
	}
	return views.JobLogView{JobID: j.ID, Text: strings.ToValidUTF8(string(page.Data), "\uFFFD"), Ran: page.CommandID != 0,
		Done: models.IsTerminal(j.State), Skipped: page.Offset, Part: part, Parts: parts, PartNodes: nodes}, nil
}

// jobView loads job {id} with its timeline and GPUs: a fixed number of
// queries.
func (h *Handlers) jobView(c echo.Context) (views.JobDetail, error) {
	id, err := jobID(c)
	if err != nil {
		return views.JobDetail{}, err
	}
	ctx := c.Request().Context()
	u := userOf(c)
	j, err := models.GetJob(ctx, h.DB.Bun, id)
	if err != nil {
		return views.JobDetail{}, fromModel(err, fmt.Sprintf("job %d", id))
	}
	owner, err := models.GetUser(ctx, h.DB.Bun, j.OwnerID)
	if err != nil {
		return views.JobDetail{}, err
	}
	events, err := models.JobTimeline(ctx, h.DB.Bun, id)
	if err != nil {
		return views.JobDetail{}, err
	}
	gpus, err := models.JobAllocations(ctx, h.DB.Bun, id)
	if err != nil {
		return views.JobDetail{}, err
	}
	mayAct := j.OwnerID == u.ID || u.IsAdmin()
	d := views.JobDetail{ID: j.ID, Name: j.Name, Owner: owner.Email, State: j.State, Priority: priorityName(j.Priority),
		Code: j.PendingCode, Reason: localtime.InstantsNear(j.PendingReason, h.Now(), viewerZone(c)), CanAct: mayAct && !models.IsTerminal(j.State), CanSeeLogs: mayAct,
		Now: h.Now(), Spec: jobFields(j, viewerZone(c)), Admin: u.IsAdmin()}
	d.CSRF = csrfToken(c)
	if j.QueuePosition != nil {
		d.Position = *j.QueuePosition
	}
	if j.EstimatedStartAt != nil {
		d.ETA = *j.EstimatedStartAt
	}
	if j.StartedAt != nil {
		d.Started = *j.StartedAt
		if end, ok := expectedEnd(j); ok {
			d.ExpectedEnd = end
		}
	}
	if j.EndedAt != nil {
		d.Ended = *j.EndedAt
	}
	for _, e := range events {
		ev := views.JobEventView{At: e.CreatedAt, To: e.ToState, Reason: e.Reason, Actor: e.ActorEmail}
		if e.FromState != nil {
			ev.From = *e.FromState
		}
		d.Timeline = append(d.Timeline, ev)
	}
	for _, g := range gpus {
		v := views.JobGPUView{Node: g.NodeName, Index: g.Index, Model: g.Model, Since: g.Since}
		if g.ReleasedAt != nil {
			v.Released = *g.ReleasedAt
		}
		d.GPUs = append(d.GPUs, v)
	}
	if j.State == models.JobRunning { // idle policy
		if err := h.jobIdleView(c, &d); err != nil {
			return views.JobDetail{}, err
		}
	}
	if mayAct {
		if d.Log, err = h.jobLog(c, j); err != nil {
			return views.JobDetail{}, err
		}
	}
	return d, nil
}

// jobFields lists a job's spec for people. Environment values stay
// hidden: only their names are shown.
func jobFields(j *models.Job, loc *time.Location) []views.Field {
	gpus := fmt.Sprintf("%d", j.GPUCount)
	if j.GPUModel != "" {
		gpus += " × " + j.GPUModel
	}
	if j.GPUMemoryMiB != nil {
		gpus += fmt.Sprintf(", ≥ %d GiB each", *j.GPUMemoryMiB/1024)
	}
	est := "–"
	if j.EstimatedDurationS != nil {
		est = (time.Duration(*j.EstimatedDurationS) * time.Second).String()
	}
	env := make([]string, 0, len(j.Env))
	for k := range j.Env {
		env = append(env, k)
	}
	slices.Sort(env)
	out := []views.Field{
		{Label: "GPUs", Value: gpus},
		{Label: "Runs on", Value: j.Executor},
		{Label: "Command", Value: orNone(j.Command)},
		{Label: "Working directory", Value: orNone(j.Workdir)},
		{Label: "Environment", Value: orNone(strings.Join(env, ", "))},
		{Label: "Job type", Value: orNone(j.JobType)},
		{Label: "Estimated duration", Value: est},
		{Label: "Time limit", Value: limitWords(j)},
		{Label: "Waits for", Value: waitsWords(j.WaitsFor)},
		{Label: "Preemptible", Value: fmt.Sprint(j.Preemptible)},
		{Label: "Checkpoints", Value: checkpointWords(j)},
		{Label: "GPU time had", Value: fmt.Sprintf("%.2f GPU-h in earlier runs", j.AttainedGPUS/3600)},
		{Label: "Retries", Value: fmt.Sprintf("%d of %d", j.RetryCount, j.MaxRetries)},
		{Label: "Submitted", Value: localtime.StampSeconds(j.SubmittedAt, loc)},
	}
	if code := lastExit(j); code != nil {
		out = append(out, views.Field{Label: "Exit code", Value: fmt.Sprint(*code)})
	}
	if j.FailureReason != "" {
		out = append(out, views.Field{Label: "Failure", Value: j.FailureReason})
	}
	return out
}

// checkpointWords says whether j saves on SIGTERM and how long it has.
func checkpointWords(j *models.Job) string {
	if !j.Checkpoint {
		return "no: preempted only for higher-priority work, losing its progress"
	}
	return fmt.Sprintf("yes: on preemption SIGTERM, then %d s to save before SIGKILL; resumes with GPUSCHED_RESTART_COUNT", j.StopGraceS)
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "–"
	}
	return s
}

// limitWords says j's time limit and what happens at it.
func limitWords(j *models.Job) string {
	if j.TimeLimitS == nil {
		return "none"
	}
	return fmt.Sprintf("%s: then SIGTERM, %d s of grace, SIGKILL, and it ends timeout",
		localtime.Span(time.Duration(*j.TimeLimitS)*time.Second), j.StopGraceS)
}

// waitsWords lists the conditions a job still waits for, in Slurm's words.
func waitsWords(waits string) string {
	ds := waitsForJSON(waits)
	if len(ds) == 0 {
		return "–"
	}
	words := make([]string, len(ds))
	for i, d := range ds {
		words[i] = d.String()
	}
	return strings.Join(words, ", ")
}
