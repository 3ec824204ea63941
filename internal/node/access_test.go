package node_test

import (
	"fmt"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Node routes belong to the token's own node; a job's output to its owner
// (and admins); a command is answered only by its node.
func TestNodeRoutesAccess(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	id := c.submit(t, `echo secret`, 1, 0)
	c.waitState(t, id, models.JobCompleted)
	start, _ := models.LatestCommand(t.Context(), c.s.DB.Bun, id, models.CommandStart)
	other, _ := c.s.NodeToken(t, "other-node")
	member, _ := c.s.UserToken(t, models.RoleMember)
	admin, _ := c.s.UserToken(t, models.RoleAdmin)
	n := c.node.ID
	tests := map[string]struct {
		method, path, token, body string
		status                    int
	}{
		"another node's commands":      {"GET", fmt.Sprintf("/api/v1/nodes/%d/commands?wait=0", n), other, "", 403},
		"answer another node's":        {"POST", fmt.Sprintf("/api/v1/nodes/%d/commands/%d/result", n, start.ID), other, `{"ok": true}`, 403},
		"a personal token on node API": {"GET", fmt.Sprintf("/api/v1/nodes/%d/commands?wait=0", n), c.user, "", 403},
		"unknown command":              {"POST", fmt.Sprintf("/api/v1/nodes/%d/commands/99999/exit", n), c.nodeToken, `{"exit_code": 0}`, 404},
		"wait too long":                {"GET", fmt.Sprintf("/api/v1/nodes/%d/commands?wait=600", n), c.nodeToken, "", 400},
		"negative log offset":          {"POST", fmt.Sprintf("/api/v1/nodes/%d/commands/%d/logs", n, start.ID), c.nodeToken, `{"offset": -1, "data": ""}`, 400},
		"answering again is harmless":  {"POST", fmt.Sprintf("/api/v1/nodes/%d/commands/%d/exit", n, start.ID), c.nodeToken, `{"exit_code": 9}`, 204},
		"another member's output":      {"GET", fmt.Sprintf("/api/v1/jobs/%d/logs", id), member, "", 404},
		"an admin reads any output":    {"GET", fmt.Sprintf("/api/v1/jobs/%d/logs", id), admin, "", 200},
		"the node's own commands":      {"GET", fmt.Sprintf("/api/v1/nodes/%d/commands?wait=0", n), c.nodeToken, "", 200},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			status, body := c.s.Do(t, tc.method, tc.path, tc.token, tc.body)
			if status != tc.status {
				t.Fatalf("%d %s, want %d", status, body, tc.status)
			}
			if status >= 400 {
				testserver.APIError(t, body)
			}
		})
	}
	// The repeated exit report changed nothing.
	if j := c.job(t, id); j.State != models.JobCompleted || *j.ExitCode != 0 {
		t.Fatalf("job %s exit %v after a repeated report", j.State, *j.ExitCode)
	}
}
