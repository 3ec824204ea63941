package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// A request for more GPUs than are free waits, shown in /jobs with its
// place; it is granted once the holder's process exits, and the holder's
// GPUs are released within a second of that exit. A client that stops
// waiting withdraws its request.
func TestLocalLeaseWaitsAndReleasesOnExit(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	url := c.localAPI(t, false)
	holder := sleeper(t, 2*time.Second)
	exited := make(chan time.Time, 1)
	if status, out := post(t, url+"/acquire", fmt.Sprintf(`{"pid": %d, "num_gpus": 4}`, holder.Process.Pid)); status != 200 || out["gpus"] != "0,1,2,3" {
		t.Fatalf("holder: %d %v", status, out)
	}
	go func() { _ = holder.Wait(); exited <- time.Now() }()

	waiter := sleeper(t, time.Minute)
	granted := make(chan map[string]any, 1)
	go func() {
		_, out := post(t, url+"/acquire", fmt.Sprintf(`{"pid": %d, "num_gpus": 2}`, waiter.Process.Pid))
		granted <- out
	}()
	waitFor(t, "the waiter listed as queued", func() bool {
		for _, j := range localJobs(t, url) {
			if int(j["pid"].(float64)) == waiter.Process.Pid && j["status"] == "queued" {
				return true
			}
		}
		return false
	})

	// A third request whose client gives up is withdrawn.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/acquire", strings.NewReader(fmt.Sprintf(`{"pid": %d, "num_gpus": 1}`, waiter.Process.Pid)))
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("the third request should still be waiting when its client gives up")
	}

	out := <-granted
	exitAt := <-exited
	if g, _ := out["gpus"].(string); len(strings.Split(g, ",")) != 2 {
		t.Fatalf("waiter got %v, want two of the holder's GPUs", out)
	}
	holderJob := leaseJob(t, c, holder.Process.Pid)
	if holderJob.State != models.JobCompleted || holderJob.EndedAt.Sub(exitAt) > time.Second {
		t.Fatalf("holder lease %s, ended %v after its process exited; want completed within 1s", holderJob.State, holderJob.EndedAt.Sub(exitAt))
	}
	waitFor(t, "the withdrawn request canceled", func() bool {
		var states []string
		_ = c.s.DB.Bun.NewSelect().Model((*models.Job)(nil)).Column("state").Where("client_ref = ?", fmt.Sprintf("pid %d on %s", waiter.Process.Pid, c.node.Name)).
			OrderExpr("id").Scan(context.Background(), &states)
		return strings.Join(states, ",") == "running,canceled"
	})
}

func localJobs(t testing.TB, url string) []map[string]any {
	t.Helper()
	resp, err := http.Get(url + "/jobs")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func leaseJob(t testing.TB, c *cluster, pid int) *models.Job {
	t.Helper()
	j := new(models.Job)
	err := c.s.DB.Bun.NewSelect().Model(j).Where("client_ref = ?", "pid "+strconv.Itoa(pid)+" on "+c.node.Name).Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return j
}
