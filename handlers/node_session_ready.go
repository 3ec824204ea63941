package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// NodeSessionReady handles POST /api/v1/nodes/{id}/sessions/{job}/ready:
// the node agent's report that a session's server answers, and where its
// session listener is reached (and, later, the server's last activity).
// The session must hold GPUs on that node. The first report tells the
// owner (session.ready, with the link).
func (h *Handlers) NodeSessionReady(c echo.Context) error {
	node, err := ownNode(c)
	if err != nil {
		return err
	}
	job, err := strconv.ParseInt(c.Param("job"), 10, 64)
	if err != nil || job <= 0 {
		return Errorf(http.StatusBadRequest, api.CodeInvalidPath, "job id %q is not a positive number", c.Param("job"))
	}
	var r api.SessionReady
	if err := decodeNodeJSON(c, &r); err != nil {
		return err
	}
	if u, err := url.Parse(r.AgentURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(r.AgentURL) > 512 {
		return invalid("agent_url", "must be the http(s) URL of the agent's session listener, not %q", r.AgentURL)
	}
	if len(r.TokenPrefix) != 12 {
		return invalid("token_prefix", "must be the node token's 12-character prefix")
	}
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		now := h.Now()
		first, err := models.MarkInteractiveReady(ctx, tx, job, node.ID, r.AgentURL, r.TokenPrefix, r.LastActivity, now)
		if err != nil || !first {
			return err
		}
		// Pages that list the session (Sessions, queue, job) show Open now.
		if err := models.Signal(ctx, tx, models.ChannelJobs, strconv.FormatInt(job, 10)); err != nil {
			return err
		}
		j, err := models.GetJob(ctx, tx, job)
		if err != nil {
			return err
		}
		payload, err := models.JobPayload(ctx, tx, j, now)
		if err != nil {
			return err
		}
		payload.Path = api.SessionPath(job)
		payload.Title = fmt.Sprintf("Your %s session %d is ready", models.SessionKindOf(j.JobType), job)
		return models.Emit(ctx, tx, models.NotifyEvent{Name: models.EventSessionReady, Subject: fmt.Sprintf("job:%d", job),
			Users: []int64{j.OwnerID}, Payload: *payload}, now)
	})
	if err != nil {
		return fromModel(err, fmt.Sprintf("session %d on node %s", job, node.Name))
	}
	return c.NoContent(http.StatusNoContent)
}
