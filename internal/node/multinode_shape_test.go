package node_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A job shaped 2 nodes × 4 GPUs on two nodes of 8 does not pack onto one
// node: it starts one part on each node, each with 4 GPUs (issue 28).
func TestMultiNodeJobShapeTwoByFour(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	cmd := `echo "rank=$NODE_RANK nnodes=$GPUSCHED_NNODES gpn=$GPUSCHED_GPUS_PER_NODE list=$GPUSCHED_NODELIST cuda=$CUDA_VISIBLE_DEVICES"`
	body := fmt.Sprintf(`{"command": %q, "nodes": 2, "gpus_per_node": 4, "executor": "node", "workdir": "/"}`, cmd)
	status, out := c.s.Do(t, "POST", "/api/v1/queue/submit", c.user, body)
	if status != 201 {
		t.Fatalf("submit: %d %s", status, out)
	}
	var sub struct{ ID int64 }
	if err := json.Unmarshal(out, &sub); err != nil {
		t.Fatal(err)
	}
	j := c.waitState(t, sub.ID, "completed")
	if j.ExitCode == nil || *j.ExitCode != 0 || j.Nodes != 2 || j.GPUCount != 8 {
		t.Fatalf("exit code %v nodes %d gpus %d, want 0, 2, 8", j.ExitCode, j.Nodes, j.GPUCount)
	}
	tests := map[string]struct {
		part int
		want string
	}{
		"rank 0 on mn-a with 4": {part: 0, want: "rank=0 nnodes=2 gpn=4 list=mn-a,mn-b cuda=0,1,2,3"},
		"rank 1 on mn-b with 4": {part: 1, want: "rank=1 nnodes=2 gpn=4 list=mn-a,mn-b cuda=0,1,2,3"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			l := c.partLog(t, sub.ID, tc.part)
			if !strings.Contains(l.Data, tc.want) {
				t.Errorf("part %d's output %q lacks %q", tc.part, l.Data, tc.want)
			}
			if l.Parts != 2 {
				t.Errorf("parts %d, want 2", l.Parts)
			}
		})
	}
}
