package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A 16-GPU job on two nodes of 8 starts one part on each; the parts meet
// at MASTER_ADDR:MASTER_PORT (rank 0 counts WORLD_SIZE ranks), each sees
// its own rank and GPUs, and the job completes with each part's output
// kept apart.
func TestMultiNodeJobPartsMeet(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	cmd := `echo "rank=$NODE_RANK world=$WORLD_SIZE nnodes=$GPUSCHED_NNODES gpn=$GPUSCHED_GPUS_PER_NODE list=$GPUSCHED_NODELIST ` +
		`slurm=$SLURM_NNODES/$SLURM_JOB_NODELIST/$SLURM_NODEID/$SLURM_PROCID/$SLURM_NTASKS/$SLURM_GPUS_ON_NODE cuda=$CUDA_VISIBLE_DEVICES"; ` +
		rendezvousEnv + `=1 exec ` + c.helper
	id := c.submit(t, cmd)
	j := c.waitState(t, id, "completed")
	if j.ExitCode == nil || *j.ExitCode != 0 {
		t.Fatalf("exit code %v, want 0", j.ExitCode)
	}
	tests := map[string]struct {
		part int
		want []string
	}{
		"rank 0": {part: 0, want: []string{"rank=0 world=2 nnodes=2 gpn=8 list=mn-a,mn-b slurm=2/mn-a,mn-b/0/0/2/8 cuda=0,1,2,3,4,5,6,7", "rank 0 saw 2 of 2 ranks"}},
		"rank 1": {part: 1, want: []string{"rank=1 world=2 nnodes=2 gpn=8 list=mn-a,mn-b slurm=2/mn-a,mn-b/1/1/2/8 cuda=0,1,2,3,4,5,6,7", "rank 1 met rank 0 at 127.0.0.1:"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			l := c.partLog(t, id, tc.part)
			for _, w := range tc.want {
				if !strings.Contains(l.Data, w) {
					t.Errorf("part %d's output %q lacks %q", tc.part, l.Data, w)
				}
			}
			if l.Parts != 2 || !l.Done {
				t.Errorf("parts %d done %v, want 2 and done", l.Parts, l.Done)
			}
		})
	}
}

// Killing one part ends the other: the job fails with the killed part's
// exit, and every GPU is released.
func TestMultiNodeJobKilledPartEndsTheOther(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id := c.submit(t, `echo "part $NODE_RANK up"; sleep 600`)
	c.waitState(t, id, "running")
	pid := c.partPID(t, id, 1)
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	j := c.waitState(t, id, "failed")
	if j.ExitCode == nil || *j.ExitCode != 137 {
		t.Errorf("exit code %v, want 137 (SIGKILL)", j.ExitCode)
	}
	if want := "part 1 of 2 (node mn-b): killed by SIGKILL"; !strings.Contains(j.FailureReason, want) {
		t.Errorf("failure reason %q, want it to say %q", j.FailureReason, want)
	}
	rank0 := c.partPID(t, id, 0)
	waitFor(t, "part 0's process gone", func() bool { return syscall.Kill(rank0, 0) != nil })
	n, err := c.s.DB.Bun.NewSelect().Model((*models.Allocation)(nil)).Where("job_id = ? AND released_at IS NULL", id).Count(context.Background())
	if err != nil || n != 0 {
		t.Fatalf("%d allocations still live (%v)", n, err)
	}
}

// Canceling a multi-node job stops every part; it ends canceled once both
// have ended, and its GPUs are released.
func TestMultiNodeJobCancelStopsEveryPart(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id := c.submit(t, `trap 'echo "part $NODE_RANK got TERM"; exit 0' TERM; while :; do sleep 0.1; done`)
	c.waitState(t, id, "running")
	pids := []int{c.partPID(t, id, 0), c.partPID(t, id, 1)}
	if status, out := c.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), c.user, ""); status != 200 {
		t.Fatalf("cancel: %d %s", status, out)
	}
	c.waitState(t, id, "canceled")
	for rank, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("part %d (pid %d) still runs after the job ended", rank, pid)
		}
		waitFor(t, fmt.Sprintf("part %d's output", rank), func() bool {
			return strings.Contains(c.partLog(t, id, rank).Data, fmt.Sprintf("part %d got TERM", rank))
		})
	}
}

// Inside a two-node job, srun runs each node's own tasks and scontrol
// show hostnames expands the job's node list, as a Slurm script uses them.
func TestMultiNodeJobSrunAndScontrol(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	cmd := `srun sh -c 'echo "task $SLURM_PROCID local $SLURM_LOCALID on node $SLURM_NODEID"'; ` +
		`echo "first host $(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)"; echo "hosts $(scontrol show hostnames | tr '\n' ' ')"`
	body := fmt.Sprintf(`{"command": %q, "gpu_count": 16, "allow_multi_node": true, "executor": "node", "workdir": "/", "env": {"SLURM_NTASKS": "4"}}`, cmd)
	status, out := c.s.Do(t, "POST", "/api/v1/queue/submit", c.user, body)
	if status != 201 {
		t.Fatalf("submit: %d %s", status, out)
	}
	var j struct{ ID int64 }
	_ = json.Unmarshal(out, &j)
	c.waitState(t, j.ID, "completed")
	tests := map[string]struct {
		part int
		want []string
	}{
		"node 0": {0, []string{"task 0 local 0 on node 0", "task 1 local 1 on node 0", "first host mn-a\n", "hosts mn-a mn-b \n"}},
		"node 1": {1, []string{"task 2 local 0 on node 1", "task 3 local 1 on node 1", "first host mn-a\n"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			l := c.partLog(t, j.ID, tc.part)
			for _, w := range tc.want {
				if !strings.Contains(l.Data, w) {
					t.Errorf("part %d's output %q lacks %q", tc.part, l.Data, w)
				}
			}
		})
	}
}

// A node that goes down loses a multi-node job at once (no retries left:
// it fails), and the part on the node still up is stopped by its agent.
func TestMultiNodeJobLostNodeStopsTheOther(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id := c.submit(t, `sleep 600`)
	c.waitState(t, id, "running")
	pid := c.partPID(t, id, 0)
	orphan := c.partPID(t, id, 1)
	t.Cleanup(func() { _ = syscall.Kill(-orphan, syscall.SIGKILL) }) // its agent is gone for good
	c.stops[1]()
	later := *c.s.Deps
	later.Now = func() time.Time { return time.Now().Add(2 * later.Config.NodeDownAfter) }
	if err := jobs.SweepNodes(context.Background(), later); err != nil {
		t.Fatal(err)
	}
	j := c.waitState(t, id, "failed")
	if !strings.Contains(j.FailureReason, "its node went down") {
		t.Errorf("failure reason %q", j.FailureReason)
	}
	waitFor(t, "part 0 stopped on the node still up", func() bool { return syscall.Kill(pid, 0) != nil })
}

// All or none: a part that cannot start (its agent cannot record the run)
// stops the part already started, and the job fails saying which.
func TestMultiNodeJobPartThatCannotStartEndsTheRest(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	// mn-b can no longer record runs: its state folder is now a file.
	if err := os.RemoveAll(c.states[1]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.states[1], nil, 0o600); err != nil {
		t.Fatal(err)
	}
	id := c.submit(t, `sleep 600`)
	pid := c.partPID(t, id, 0)
	j := c.waitState(t, id, "failed")
	if want := "part 1 of 2 (node mn-b): could not start"; !strings.Contains(j.FailureReason, want) {
		t.Errorf("failure reason %q, want it to say %q", j.FailureReason, want)
	}
	waitFor(t, "part 0 stopped", func() bool { return syscall.Kill(pid, 0) != nil })
}
