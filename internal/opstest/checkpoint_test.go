package opstest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// trainScript is a job that checkpoints as a user would write it: it
// records what it sees in events.log, resumes from ckpt.txt, saves its
// step there on SIGTERM (taking a second, as saving a model does) and
// exits 0, and otherwise counts STEPS steps.
const trainScript = `#!/bin/sh
step=0
echo "start restart=${GPUSCHED_RESTART_COUNT:-unset}" >> events.log
if [ -f ckpt.txt ]; then step=$(cat ckpt.txt); echo "resume step=$step" >> events.log; fi
trap 'echo "saving at step $step"; sleep 1; echo $step > ckpt.txt; echo "saved step=$step" >> events.log; exit 0' TERM
while [ "$step" -lt "$STEPS" ]; do
  step=$((step+1))
  sleep 0.25
done
echo "done step=$step" >> events.log
`

// jobDetail is the part of GET /api/v1/jobs/{id} these tests read.
type jobDetail struct {
	State        string `json:"state"`
	ExitCode     *int   `json:"exit_code"`
	RestartCount int    `json:"restart_count"`
	Events       []struct {
		ToState   string    `json:"to_state"`
		Reason    string    `json:"reason"`
		CreatedAt time.Time `json:"created_at"`
	} `json:"events"`
}

func (d jobDetail) states() []string {
	var out []string
	for _, e := range d.Events {
		out = append(out, e.ToState)
	}
	return out
}

// A job submitted with checkpoint: true to a real
// server and node agent is preempted by LAS demotion when a fresh job needs
// its GPUs: it gets SIGTERM, saves its step within the grace (no SIGKILL),
// goes back to the queue, starts again as attempt 2 with
// GPUSCHED_RESTART_COUNT=1, resumes from the saved step and completes,
// its attained service kept. A job beside it that does not checkpoint,
// cheaper to stop and as demoted, is left running. The policy's thresholds
// and cooldown are set small through PUT /orchestrator/policies, as an
// admin would.
func TestCheckpointPreemptionEndToEnd(t *testing.T) {
	t.Parallel()
	pg := startPG(t)
	pool := pg.Pool()
	s := startServer(t, "server", pg.URL)
	token := adminToken(t, pg.URL)
	nodeTok := cli(t, pg.URL, "token", "create", "--node", "gpu-c")
	state := openDir(t, "opstest-node-state-")
	killJobProcesses(t, state)
	startNode(t, "gpu-c", s.URL, nodeTok, state)
	if waitNodeUp(t, pool, "gpu-c", 20*time.Second) < 0 {
		t.Fatal("node not up")
	}
	ctx := context.Background()
	var pol map[string]any // GET answers the policy in the shape PUT takes
	if _, err := api(ctx, http.MethodGet, s.URL+"/api/v1/orchestrator/policies", token, nil, &pol); err != nil {
		t.Fatal(err)
	}
	las := pol["las"].(map[string]any)
	// Level 2 after 3.6 GPU-s (4 GPUs, under a second); stopped by demotion
	// after 2 s running; no cap on the time lost; no priority preemption.
	las["thresholds_gpu_hours"], las["preempt_cooldown"], las["max_lost_share"] = []float64{0.001}, "2s", 0
	pol["min_runtime"] = "1h"
	if _, err := api(ctx, http.MethodPut, s.URL+"/api/v1/orchestrator/policies", token, pol, nil); err != nil {
		t.Fatal(err)
	}

	work := openDir(t, "opstest-ckpt-")
	if err := os.WriteFile(filepath.Join(work, "train.sh"), []byte(trainScript), 0o755); err != nil {
		t.Fatal(err)
	}
	const grace = 30 // s: a SIGKILL would show as a stop this long
	submitJob := func(body map[string]any) int64 {
		t.Helper()
		var j Job
		if _, err := api(ctx, http.MethodPost, s.URL+"/api/v1/queue/submit", token, body, &j); err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	ckpt := submitJob(map[string]any{"name": "ckpt", "command": "./train.sh", "workdir": work, "gpu_count": 4,
		"checkpoint": true, "stop_grace": fmt.Sprintf("%ds", grace), "env": map[string]string{"STEPS": "40"}})
	if _, d := waitState(t, s.URL, token, ckpt, 15*time.Second, "running"); d < 0 {
		t.Fatal("checkpointing job not running")
	}
	plain := submitJob(map[string]any{"name": "plain", "command": "sleep 12", "gpu_count": 4})
	if _, d := waitState(t, s.URL, token, plain, 15*time.Second, "running"); d < 0 {
		t.Fatal("job that does not checkpoint not running")
	}
	time.Sleep(2500 * time.Millisecond) // the policy under test: both past its 2 s cooldown (the server's own clock) and demoted
	fresh := submitJob(map[string]any{"name": "fresh", "command": "sleep 2", "gpu_count": 4})
	submitted := time.Now()

	detail := func(id int64) jobDetail {
		t.Helper()
		var d jobDetail
		if _, err := api(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/jobs/%d", s.URL, id), token, nil, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	// The preempted run's end is recorded before the job runs again (the
	// fresh job holds its GPUs for 2 s): it exited 0 after saving.
	var requeued jobDetail
	poll(20*time.Second, 50*time.Millisecond, func() bool {
		requeued = detail(ckpt)
		return slices.Contains(requeued.states(), "preempted")
	})
	if !slices.Contains(requeued.states(), "preempted") {
		dumpStuck(t, pool)
		t.Fatalf("checkpointing job not preempted within 20 s: %v", requeued.states())
	}
	stopped := time.Since(submitted)
	t.Logf("preempted and requeued %s after the fresh job was submitted (grace %d s)", stopped.Round(time.Millisecond), grace)
	if stopped > grace*time.Second/2 {
		t.Errorf("the stop took %s: the job was killed at the end of its grace rather than exiting on SIGTERM", stopped)
	}
	if stopped < time.Second {
		t.Errorf("requeued %s after the fresh job came, before the job could have saved (1 s): the run ended while it was saving", stopped)
	}
	if requeued.State == "queued" && (requeued.ExitCode == nil || *requeued.ExitCode != 0) {
		code := "none"
		if requeued.ExitCode != nil {
			code = fmt.Sprint(*requeued.ExitCode)
		}
		t.Errorf("the preempted run's exit code %s, want 0 (saved and exited on SIGTERM)", code)
	}
	var reason string
	for _, e := range requeued.Events {
		if e.ToState == "preempted" {
			reason = e.Reason
		}
	}
	if want := fmt.Sprintf("preempted for job %d, which needs 4 GPUs: checkpointed and demoted", fresh); !strings.HasPrefix(reason, want) {
		t.Errorf("preemption reason %q, want it to start %q", reason, want)
	}

	// Attempt 2 running shows no exit code (the first run's 0 is not its own).
	var attempt2 jobDetail
	if poll(20*time.Second, 50*time.Millisecond, func() bool { attempt2 = detail(ckpt); return attempt2.State == "running" }) >= 0 &&
		attempt2.ExitCode != nil {
		t.Errorf("attempt 2 running shows exit code %d", *attempt2.ExitCode)
	}
	done, d := waitState(t, s.URL, token, ckpt, 60*time.Second, terminal...)
	if d < 0 || done.State != "completed" {
		dumpStuck(t, pool)
		t.Fatalf("checkpointing job ended %q, want completed", done.State)
	}
	final := detail(ckpt)
	if want := []string{"queued", "scheduled", "allocating", "running", "preempted", "queued", "scheduled", "allocating", "running", "completed"}; !slices.Equal(final.states(), want) {
		t.Errorf("timeline %v, want %v", final.states(), want)
	}
	if final.RestartCount != 1 {
		t.Errorf("restart_count %d, want 1", final.RestartCount)
	}
	b, err := os.ReadFile(filepath.Join(work, "events.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	t.Logf("what the job saw: %q", lines)
	var saved string
	if len(lines) == 5 {
		saved = strings.TrimPrefix(lines[1], "saved step=")
	}
	if want := []string{"start restart=0", "saved step=" + saved, "start restart=1", "resume step=" + saved, "done step=40"}; saved == "" || saved == "0" || !slices.Equal(lines, want) {
		t.Errorf("the job saw %q, want %q with a step saved after the start", lines, want)
	}
	// Each run's output stays readable: the first run's save, the second's end.
	type logPage struct {
		Data      string `json:"data"`
		Run, Runs int
	}
	var first, newest logPage
	if _, err := api(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/jobs/%d/logs?run=1", s.URL, ckpt), token, nil, &first); err != nil {
		t.Fatal(err)
	}
	if _, err := api(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/jobs/%d/logs", s.URL, ckpt), token, nil, &newest); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first.Data, "saving at step "+saved) || first.Run != 1 || newest.Run != 2 || newest.Runs != 2 || strings.Contains(newest.Data, "saving") {
		t.Errorf("logs: run 1 %+v, newest %+v; want run 1 saving at step %s, newest run 2 of 2", first, newest, saved)
	}
	if st, _ := api(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/jobs/%d/logs?run=3", s.URL, ckpt), token, nil, nil); st != http.StatusBadRequest {
		t.Errorf("logs of run 3 of 2: %d, want 400", st)
	}
	var attained float64
	if err := pool.QueryRow(ctx, `SELECT attained_gpu_s FROM jobs WHERE id = $1`, ckpt).Scan(&attained); err != nil {
		t.Fatal(err)
	}
	if attained < 4*2 {
		t.Errorf("attained service %.1f GPU-s after a first run of over 2 s on 4 GPUs: not kept", attained)
	}

	p, d := waitState(t, s.URL, token, plain, 30*time.Second, terminal...)
	if d < 0 || p.State != "completed" || slices.Contains(detail(plain).states(), "preempted") {
		t.Errorf("the job that does not checkpoint: %s, timeline %v; want completed, never preempted", p.State, detail(plain).states())
	}
	if f, d := waitState(t, s.URL, token, fresh, 30*time.Second, terminal...); d < 0 || f.State != "completed" {
		t.Errorf("the fresh job ended %q", f.State)
	}
}
