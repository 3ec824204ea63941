package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// submitBatch submits script as sbatch does a two-node batch job (its
// output file named in GPUSCHED_STDOUT, the first part truncating it),
// and returns the job and the folder of its output file, which the job's
// user may write.
func (c *twoNodes) submitBatch(t *testing.T, script string) (int64, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "gpusched-batch-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	cmd := `: >"$GPUSCHED_STDOUT" && exec >>"$GPUSCHED_STDOUT" 2>&1` + "\n" + script
	env := map[string]string{"GPUSCHED_STDOUT": filepath.Join(dir, "slurm-%j.out"), "SLURM_NTASKS": "2", "GPUSCHED_STEP_WAIT": "30"}
	body, _ := json.Marshal(map[string]any{"command": cmd, "gpu_count": 16, "allow_multi_node": true, "executor": "node", "workdir": dir, "env": env})
	status, out := c.s.Do(t, "POST", "/api/v1/queue/submit", c.user, string(body))
	if status != 201 {
		t.Fatalf("submit: %d %s", status, out)
	}
	var j struct{ ID int64 }
	_ = json.Unmarshal(out, &j)
	return j.ID, dir
}

// batchOutput is the lines of job id's -o file, sorted.
func batchOutput(t *testing.T, dir string, id int64) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("slurm-%d.out", id)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(lines)
	return lines
}

// A two-node batch script runs once, on the first node, as in Slurm: a
// line outside srun is written once, srun runs one task on each node (its
// environment, exports of the script included, goes along; each node's
// own names and GPUs stay its own), and every task's output lands in the
// -o file once.
func TestMultiNodeBatchScriptRunsOnce(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id, dir := c.submitBatch(t, `echo "outside on $SLURMD_NODENAME"
export FROM_SCRIPT=yes
head=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)
srun sh -c 'echo "task $SLURM_PROCID of $SLURM_NTASKS on $SLURMD_NODENAME node $SLURM_NODEID head '"$head"' script=$FROM_SCRIPT gpus=$CUDA_VISIBLE_DEVICES"'
echo "srun said $?"`)
	j := c.waitState(t, id, "completed")
	if j.ExitCode == nil || *j.ExitCode != 0 {
		t.Fatalf("exit code %v, want 0", j.ExitCode)
	}
	want := []string{
		"outside on mn-a",
		"srun said 0",
		"task 0 of 2 on mn-a node 0 head mn-a script=yes gpus=0,1,2,3,4,5,6,7",
		"task 1 of 2 on mn-b node 1 head mn-a script=yes gpus=0,1,2,3,4,5,6,7",
	}
	if d := cmp.Diff(want, batchOutput(t, dir, id)); d != "" {
		t.Errorf("the -o file (-want +got):\n%s", d)
	}
	var secret string
	err := c.s.DB.Bun.NewSelect().Model((*models.NodeCommand)(nil)).ColumnExpr("payload->'part'->>'step_secret'").
		Where("job_id = ? AND kind = 'start'", id).Limit(1).Scan(context.Background(), &secret)
	if err != nil || len(secret) < 32 {
		t.Fatalf("the job's step secret %q (%v)", secret, err)
	}
	_, job := c.s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d", id), c.user, "")
	shown := map[string]string{"the job": string(job), "part 0's log": c.partLog(t, id, 0).Data, "part 1's log": c.partLog(t, id, 1).Data}
	for what, text := range shown {
		if strings.Contains(text, secret) {
			t.Errorf("%s shows the step secret", what)
		}
	}
}

// srun --ntasks-per-node 2 runs four tasks, two on each node, each with a
// PROCID of its own; srun -N1 and srun -n1 run on the first node only;
// sruns at once (srun a & srun b & wait) each run their own step, and
// srun --export=ALL,NAME=VALUE sets NAME on every node.
func TestMultiNodeBatchTasksPerNode(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id, dir := c.submitBatch(t, `srun --ntasks-per-node 2 sh -c 'echo "procid $SLURM_PROCID local $SLURM_LOCALID node $SLURM_NODEID step $SLURM_STEP_NUM_TASKS/$SLURM_STEP_NUM_NODES"'
srun -N1 sh -c 'echo "alone on $SLURMD_NODENAME"'
srun -n1 sh -c 'echo "one task on $SLURMD_NODENAME"'
srun --export=ALL,TAG=a sh -c 'echo "$TAG $SLURM_PROCID"' & srun sh -c 'echo "b $SLURM_PROCID"' & wait`)
	c.waitState(t, id, "completed")
	want := []string{
		"a 0", "a 1", "alone on mn-a", "b 0", "b 1", "one task on mn-a",
		"procid 0 local 0 node 0 step 4/2", "procid 1 local 1 node 0 step 4/2",
		"procid 2 local 0 node 1 step 4/2", "procid 3 local 1 node 1 step 4/2",
	}
	if d := cmp.Diff(want, batchOutput(t, dir, id)); d != "" {
		t.Errorf("the -o file (-want +got):\n%s", d)
	}
}

// A task failing on the second node fails srun with its status, and the
// job with the script's.
func TestMultiNodeBatchRemoteTaskFails(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id, dir := c.submitBatch(t, `srun sh -c 'echo "node $SLURM_NODEID"; [ "$SLURM_NODEID" = 1 ] && exit 7; exit 0'
s=$?
echo "srun said $s"
exit $s`)
	j := c.waitState(t, id, "failed")
	if j.ExitCode == nil || *j.ExitCode != 7 {
		t.Errorf("exit code %v, want 7", j.ExitCode)
	}
	out := batchOutput(t, dir, id)
	for _, w := range []string{"node 0", "node 1", "srun said 7", "srun: error: task 1: Exited with exit code 7"} {
		if !slices.Contains(out, w) {
			t.Errorf("the -o file %q lacks %q", out, w)
		}
	}
}

// Canceling a batch job ends the tasks srun started on the other node too,
// and what each writes as it stops still reaches the -o file.
func TestMultiNodeBatchCancelEndsRemoteTasks(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id, dir := c.submitBatch(t, `srun sh -c 'trap "echo task \$SLURM_PROCID saved; exit 0" TERM; echo $$ >"$SLURM_SUBMIT_DIR/pid.$SLURM_PROCID"; while :; do sleep 0.1; done'`)
	c.waitState(t, id, "running")
	var pids []int
	for task := range 2 {
		var pid int
		waitFor(t, fmt.Sprintf("task %d's pid", task), func() bool {
			b, err := os.ReadFile(filepath.Join(dir, "pid."+strconv.Itoa(task)))
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil && pid > 0
		})
		pids = append(pids, pid)
	}
	if status, out := c.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), c.user, ""); status != 200 {
		t.Fatalf("cancel: %d %s", status, out)
	}
	c.waitState(t, id, "canceled")
	for task, pid := range pids {
		waitFor(t, fmt.Sprintf("task %d (pid %d) gone", task, pid), func() bool { return syscall.Kill(pid, 0) != nil })
		waitFor(t, fmt.Sprintf("task %d's last line", task), func() bool {
			return slices.Contains(batchOutput(t, dir, id), fmt.Sprintf("task %d saved", task))
		})
	}
}

// A signal sent to srun alone (not the job's stop) reaches its tasks on
// every node; srun relays what they write as they stop, and the script
// goes on.
func TestMultiNodeBatchSignalToSrun(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id, dir := c.submitBatch(t, `srun sh -c 'trap "echo task \$SLURM_PROCID got TERM; exit 0" TERM; touch "up.$SLURM_PROCID"; while :; do sleep 0.1; done' &
s=$!
while [ ! -e up.0 ] || [ ! -e up.1 ]; do sleep 0.1; done
kill $s
wait $s
echo "srun ended $?"`)
	c.waitState(t, id, "completed")
	want := []string{"srun ended 0", "task 0 got TERM", "task 1 got TERM"}
	if d := cmp.Diff(want, batchOutput(t, dir, id)); d != "" {
		t.Errorf("the -o file (-want +got):\n%s", d)
	}
}
