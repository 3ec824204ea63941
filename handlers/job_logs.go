package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// maxLogPage bounds one page of output.
const maxLogPage = 1 << 20

// JobLogs handles GET /api/v1/jobs/{id}/logs?offset=N&limit=M[&run=R][&part=P]: the
// output of the job's newest run on a node (or of run R, 1 = the first: a
// job preempted or requeued has several) from byte offset N (default 0), at
// most M bytes (default and cap 1 MiB). run and runs say which run it is and
// how many there are; next_offset is where to ask next; done says the job
// ended (or run R did) and nothing more will come. Only the last 10 MiB of
// a run are kept: offset then starts later than asked. part P is one part
// of a multi-node run, by node rank (default 0: the first node).
func (h *Handlers) JobLogs(c echo.Context) error {
	id, err := jobID(c)
	if err != nil {
		return err
	}
	offset, limit := int64(0), maxLogPage
	if s := c.QueryParam("offset"); s != "" {
		if offset, err = strconv.ParseInt(s, 10, 64); err != nil || offset < 0 {
			return invalid("offset", "must be a number ≥ 0")
		}
	}
	if s := c.QueryParam("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > maxLogPage {
			return invalid("limit", "must be 1–%d", maxLogPage)
		}
	}
	run := 0
	if s := c.QueryParam("run"); s != "" {
		if run, err = strconv.Atoi(s); err != nil || run < 1 {
			return invalid("run", "must be a number ≥ 1 (1 = the job's first run)")
		}
	}
	part := -1
	if s := c.QueryParam("part"); s != "" {
		if part, err = strconv.Atoi(s); err != nil || part < 0 {
			return invalid("part", "must be a number ≥ 0: a multi-node job's node rank (0 = the first node)")
		}
	}
	ctx := c.Request().Context()
	j, err := ownJob(ctx, h.DB.Bun, userOf(c), id)
	if err != nil {
		return err
	}
	var page models.LogPage
	var out api.JobLog
	switch {
	case j.Executor == models.ExecutorRay:
		if run > 0 {
			return invalid("run", "Ray jobs keep the output of their last run only")
		}
		page, err = models.ReadRayLog(ctx, h.DB.Bun, id, offset, limit) // kept from Ray by ray_sync
	default:
		runs, rerr := models.JobRuns(ctx, h.DB.Bun, id)
		if rerr != nil {
			return rerr
		}
		out.Runs, out.Run = len(runs), len(runs)
		if run > len(runs) {
			return invalid("run", "job %d has had %s", id, words.Count(len(runs), "run"))
		}
		switch {
		case part >= 0 && len(runs) > 0:
			if run > 0 {
				out.Run = run
			}
			out.Part = part
			page, out.Parts, err = models.ReadPartLog(ctx, h.DB.Bun, id, run, part, offset, limit)
			if errors.Is(err, models.ErrNotFound) {
				if out.Parts > 1 {
					return invalid("part", "job %d runs on %d nodes (parts 0–%d); part %d has not started", id, out.Parts, out.Parts-1, part)
				}
				return invalid("part", "job %d has no part %d: it runs on one node (part 0)", id, part)
			}
		case run > 0:
			out.Run = run
			page, err = models.ReadRunLog(ctx, h.DB.Bun, id, run, offset, limit)
		default:
			page, err = models.ReadLog(ctx, h.DB.Bun, id, offset, limit)
		}
	}
	if err != nil {
		return err
	}
	out.JobID, out.Offset, out.Next, out.State = id, page.Offset, page.Next, j.State
	out.Data = strings.ToValidUTF8(string(page.Data), "\uFFFD")
	if (models.IsTerminal(j.State) || out.Run < out.Runs) && len(page.Data) < limit {
		// The exit is reported after the last chunk, so nothing more comes
		// (an earlier run has ended).
		out.Done = true
	}
	return c.JSON(http.StatusOK, out)
}
