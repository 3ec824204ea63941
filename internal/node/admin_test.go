package node_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// An admin drains the node: a submitted job waits; undrained, it runs.
// Members may not drain.
func TestDrainUndrain(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	admin, _ := c.s.UserToken(t, models.RoleAdmin)
	path := "/api/v1/cluster/nodes/" + c.node.Name
	if status, _ := c.s.Do(t, "POST", path+"/drain", c.user, ""); status != 403 {
		t.Fatalf("a member draining: %d, want 403", status)
	}
	if status, out := c.s.Do(t, "POST", path+"/drain", admin, ""); status != 200 {
		t.Fatalf("drain: %d %s", status, out)
	}
	id := c.submit(t, `echo ran`, 1, 0)
	waitFor(t, "an explanation", func() bool { return c.job(t, id).PendingReason != "" })
	if j := c.job(t, id); j.State != models.JobQueued {
		t.Fatalf("job on a drained node is %s", j.State)
	}
	if status, out := c.s.Do(t, "POST", path+"/undrain", admin, ""); status != 200 {
		t.Fatalf("undrain: %d %s", status, out)
	}
	c.waitState(t, id, models.JobCompleted)
	if status, _ := c.s.Do(t, "POST", "/api/v1/cluster/nodes/nope/drain", admin, ""); status != 404 {
		t.Fatalf("draining an unknown node: %d, want 404", status)
	}
}

// An allocated GPU nobody uses is flagged idle; one whose job runs is not.
func TestIdleGPUsFlagged(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	// A lease through the cluster API: the GPU is held but nothing runs on it.
	status, out := c.s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", c.user, `{"gpu_count": 1}`)
	if status != 200 {
		t.Fatalf("allocate: %d %s", status, out)
	}
	// A node job keeps its GPUs busy.
	id := c.submit(t, `sleep 30`, 2, 0)
	c.waitState(t, id, models.JobRunning)
	var idle struct {
		GPUs []models.IdleGPU `json:"gpus"`
	}
	waitFor(t, "the held GPU flagged idle", func() bool {
		_, body := c.s.Do(t, "GET", "/api/v1/cluster/idle-gpus?after=0s", c.user, "")
		_ = json.Unmarshal(body, &idle)
		return len(idle.GPUs) == 1
	})
	if g := idle.GPUs[0]; g.Node != c.node.Name || g.JobID == id || !strings.Contains(g.Owner, "@") {
		t.Fatalf("idle GPU %+v: want the lease's, not the running job's", g)
	}
	if status, _ := c.s.Do(t, "GET", "/api/v1/cluster/idle-gpus?after=soon", c.user, ""); status != 400 {
		t.Fatalf("bad after: %d, want 400", status)
	}
}
