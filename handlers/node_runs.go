package handlers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// maxLogChunk bounds one shipped chunk of output (before base64).
const maxLogChunk = 512 << 10

// NodeCommandExit handles POST /api/v1/nodes/{id}/commands/{cmd}/exit: how
// the run a start command began ended. Reporting twice is harmless.
func (h *Handlers) NodeCommandExit(c echo.Context) error {
	var exit api.JobExit
	if err := decodeNodeJSON(c, &exit); err != nil {
		return err
	}
	if len(exit.Message) > 4096 || len(exit.Signal) > 32 {
		return invalid("message", "at most 4096 characters (signal: 32)")
	}
	return h.withCommand(c, func(ctx context.Context, tx *models.Tx, cmd *models.NodeCommand) error {
		if cmd.Kind != models.CommandStart {
			return Errorf(http.StatusConflict, api.CodeNotAStart, "command %d is a %s; exits are reported on start commands", cmd.ID, cmd.Kind)
		}
		return jobs.FinishNodeRun(ctx, h.Lifecycle, tx, cmd, exit, h.Now())
	})
}

// NodeCommandLogs handles POST /api/v1/nodes/{id}/commands/{cmd}/logs: a
// chunk of the output of the run a start command began, at its byte
// offset. A chunk sent twice is stored once.
func (h *Handlers) NodeCommandLogs(c echo.Context) error {
	var chunk api.LogChunk
	if err := decodeNodeJSON(c, &chunk); err != nil {
		return err
	}
	switch {
	case chunk.Offset < 0:
		return invalid("offset", "must not be negative")
	case len(chunk.Data) > maxLogChunk:
		return invalid("data", "at most %d bytes per chunk", maxLogChunk)
	}
	var job int64
	err := h.withCommand(c, func(ctx context.Context, tx *models.Tx, cmd *models.NodeCommand) error {
		if cmd.Kind != models.CommandStart {
			return Errorf(http.StatusConflict, api.CodeNotAStart, "command %d is a %s; output belongs to start commands", cmd.ID, cmd.Kind)
		}
		job = cmd.JobID
		return models.AppendLog(ctx, tx, cmd.ID, cmd.JobID, chunk.Offset, chunk.Data, h.Now())
	})
	if err == nil && h.Signals != nil {
		// Job pages follow the output (SSE "logs"); after the commit, coalesced.
		h.Signals.Signal(models.ChannelLogs, strconv.FormatInt(job, 10))
	}
	return err
}
