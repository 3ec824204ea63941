package handlers

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// maxLogPage bounds one page of output.
const maxLogPage = 1 << 20

// JobLogs handles GET /api/v1/jobs/{id}/logs?offset=N&limit=M: the output
// of the job's newest run on a node from byte offset N (default 0), at most
// M bytes (default and cap 1 MiB). next_offset is where to ask next; done
// says the job ended and nothing more will come. Only the last 10 MiB of a
// run are kept: offset then starts later than asked.
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
	ctx := c.Request().Context()
	j, err := ownJob(ctx, h.DB.Bun, userOf(c), id)
	if err != nil {
		return err
	}
	read := models.ReadLog
	if j.Executor == models.ExecutorRay {
		read = models.ReadRayLog // kept from Ray by ray_sync
	}
	page, err := read(ctx, h.DB.Bun, id, offset, limit)
	if err != nil {
		return err
	}
	out := apiclient.JobLog{JobID: id, Offset: page.Offset, Next: page.Next, Data: strings.ToValidUTF8(string(page.Data), "\uFFFD"), State: j.State}
	if models.IsTerminal(j.State) && len(page.Data) < limit {
		// The exit is reported after the last chunk, so nothing more comes.
		out.Done = true
	}
	return c.JSON(http.StatusOK, out)
}
