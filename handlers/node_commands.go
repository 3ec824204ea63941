package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// maxCommandWait bounds a command long-poll.
const maxCommandWait = 60 * time.Second

// NodeCommands handles GET /api/v1/nodes/{id}/commands?wait=S: the node's
// unanswered commands, oldest first. With none pending it waits up to wait
// seconds (default 25) for one, woken by the command's NOTIFY.
func (h *Handlers) NodeCommands(c echo.Context) error {
	node, err := ownNode(c)
	if err != nil {
		return err
	}
	wait := 25 * time.Second
	if s := c.QueryParam("wait"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || time.Duration(n)*time.Second > maxCommandWait {
			return invalid("wait", "must be 0–%d seconds", int(maxCommandWait.Seconds()))
		}
		wait = time.Duration(n) * time.Second
	}
	ctx := c.Request().Context()
	events, unsubscribe := h.Listener.Subscribe(models.Topic(models.ChannelGPUs))
	defer unsubscribe()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	signal := fmt.Sprintf("%s%d", models.CommandSignal, node.ID)
	for {
		cmds, err := models.PendingCommands(ctx, h.DB.Bun, node.ID, h.Now())
		if err != nil {
			return err
		}
		if len(cmds) > 0 {
			return c.JSON(http.StatusOK, commandsJSON(cmds))
		}
	wait:
		select {
		case e := <-events:
			if e.Payload != signal && e.Payload != "reconnect" {
				goto wait
			}
		case <-deadline.C:
			return c.JSON(http.StatusOK, api.NodeCommands{Commands: []api.NodeCommand{}})
		case <-ctx.Done():
			return nil // the agent went away
		}
	}
}

func commandsJSON(cmds []models.NodeCommand) api.NodeCommands {
	out := api.NodeCommands{Commands: make([]api.NodeCommand, 0, len(cmds))}
	for _, m := range cmds {
		w := api.NodeCommand{ID: m.ID, Kind: m.Kind, JobID: m.JobID}
		switch m.Kind {
		case models.CommandStart:
			w.Start = new(api.StartJob)
			_ = json.Unmarshal(m.Payload, w.Start)
		case models.CommandStop:
			w.Stop = new(api.StopJob)
			_ = json.Unmarshal(m.Payload, w.Stop)
		}
		out.Commands = append(out.Commands, w)
	}
	return out
}

// NodeCommandResult handles POST /api/v1/nodes/{id}/commands/{cmd}/result:
// the agent's answer to a command. Answering twice is harmless.
func (h *Handlers) NodeCommandResult(c echo.Context) error {
	var res api.CommandResult
	if err := decodeNodeJSON(c, &res); err != nil {
		return err
	}
	if len(res.Message) > 4096 {
		return invalid("message", "at most 4096 characters")
	}
	return h.withCommand(c, func(ctx context.Context, tx *models.Tx, cmd *models.NodeCommand) error {
		return jobs.AnswerNodeCommand(ctx, h.Lifecycle, tx, cmd, res, h.Now())
	})
}

// withCommand runs fn on the path's command of the calling node, locked,
// in one transaction, and answers 204.
func (h *Handlers) withCommand(c echo.Context, fn func(ctx context.Context, tx *models.Tx, cmd *models.NodeCommand) error) error {
	node, err := ownNode(c)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(c.Param("cmd"), 10, 64)
	if err != nil || id <= 0 {
		return Errorf(http.StatusBadRequest, api.CodeInvalidPath, "command id %q is not a positive number", c.Param("cmd"))
	}
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		cmd, err := models.LockCommand(ctx, tx, node.ID, id)
		if err != nil {
			return fromModel(err, fmt.Sprintf("command %d of node %s", id, node.Name))
		}
		return fn(ctx, tx, cmd)
	})
	if err != nil {
		return fmt.Errorf("handlers: command %d of node %s: %w", id, node.Name, err)
	}
	return c.NoContent(http.StatusNoContent)
}

// ownNode returns the calling token's node, which must be the path's {id}.
func ownNode(c echo.Context) (*models.Node, error) {
	node := PrincipalOf(c).Node
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return nil, Errorf(http.StatusBadRequest, api.CodeInvalidPath, "node id %q is not a number", c.Param("id"))
	}
	if id != node.ID {
		return nil, Errorf(http.StatusForbidden, api.CodeForbidden, "this token belongs to node %s (id %d), not node %d", node.Name, node.ID, id)
	}
	return node, nil
}
