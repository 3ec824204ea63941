package node_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// BenchmarkReleaseToNextStart measures, on a node whose four GPUs are all
// held by a local lease, the time from the lease's release (its process
// exits; the release commits) to the process of the next queued job —
// a node-executor job waiting for those GPUs — having started on them:
// scheduling pass, dispatch, the agent's command long-poll, fork and exec.
// It reports p50 and p99 over the rounds.
//
//	go test -run '^$' -bench ReleaseToNextStart -benchtime 40x ./internal/node/
func BenchmarkReleaseToNextStart(b *testing.B) {
	c := newCluster(b)
	c.startAgent(b)
	url := c.localAPI(b, false)
	marks, err := os.MkdirTemp("", "gpusched-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(marks)
	_ = os.Chmod(marks, 0o777)
	var fromRelease []time.Duration
	b.ResetTimer()
	for i := range b.N {
		holder := sleeper(b, time.Hour)
		if status, out := post(b, url+"/acquire", fmt.Sprintf(`{"pid": %d, "num_gpus": 4}`, holder.Process.Pid)); status != 200 {
			b.Fatalf("holder: %d %v", status, out)
		}
		mark := filepath.Join(marks, strconv.Itoa(i))
		id := c.submit(b, `date +%s%N > `+mark, 4, 0)
		waitFor(b, "the job queued behind the holder", func() bool { return c.job(b, id).QueuePosition != nil })
		_ = holder.Process.Kill()
		_ = holder.Wait()
		c.waitState(b, id, models.JobCompleted)
		var released time.Time
		err := c.s.DB.Bun.NewSelect().Model((*models.Allocation)(nil)).ColumnExpr("max(alloc.released_at)").
			Join("JOIN jobs AS j ON j.id = alloc.job_id").Where("j.executor = 'lease'").Scan(context.Background(), &released)
		if err != nil {
			b.Fatal(err)
		}
		raw, err := os.ReadFile(mark)
		if err != nil {
			b.Fatal(err)
		}
		ns, _ := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
		fromRelease = append(fromRelease, time.Unix(0, ns).Sub(released))
		if os.Getenv("BENCH_PHASES") != "" && time.Unix(0, ns).Sub(released) > 200*time.Millisecond {
			evs, _ := models.JobEvents(context.Background(), c.s.DB.Bun, id)
			var ph []string
			for _, e := range evs[1:] {
				ph = append(ph, fmt.Sprintf("%s+%v", e.ToState, e.CreatedAt.Sub(released).Round(time.Millisecond)))
			}
			b.Logf("round %d: %v, process +%v", i, ph, time.Unix(0, ns).Sub(released).Round(time.Millisecond))
		}
	}
	b.StopTimer()
	slices.Sort(fromRelease)
	q := func(p float64) time.Duration {
		return fromRelease[min(len(fromRelease)-1, int(p*float64(len(fromRelease))))]
	}
	b.ReportMetric(float64(q(0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(q(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(fromRelease[len(fromRelease)-1].Microseconds())/1000, "max-ms")
}
