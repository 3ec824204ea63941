package scheduler

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// share asks for a fraction of a shared GPU.
func share(f float64) jobOpt { return func(j *Job) { j.GPUShare = f } }

// shareMem asks for memory of a shared GPU.
func shareMem(m int64) jobOpt { return func(j *Job) { j.GPUShareMemoryMiB = m } }

// mkShared is mk(1, 4) with GPUs 2 and 3 shared 4 ways: slot IDs are
// 100 + index×10 + slot, 20390 MiB each.
func mkShared() Snapshot {
	s := mk(1, 4)
	var gpus []GPU
	for _, g := range s.GPUs {
		if g.Index < 2 {
			gpus = append(gpus, g)
			continue
		}
		for k := range 4 {
			d := g
			d.ID, d.SharedSlots, d.MemoryMiB = 100+int64(g.Index)*10+int64(k), 4, g.MemoryMiB/4
			gpus = append(gpus, d)
		}
	}
	s.GPUs = gpus
	return s
}

func TestSlotsNeeded(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		share float64
		mem   int64
		slots int
		slot  int64
		want  int
	}{
		"quarter of four":          {0.25, 0, 4, 20480, 1},
		"third of four":            {0.3, 0, 4, 20480, 2},
		"whole of four":            {1, 0, 4, 20480, 4},
		"memory one slot":          {0, 20480, 4, 20480, 1},
		"memory just over":         {0, 20481, 4, 20480, 2},
		"memory and share":         {0.25, 30000, 4, 20480, 2},
		"tiny share":               {0.01, 0, 7, 11000, 1},
		"memory more than the GPU": {0, 90000, 4, 20480, 5},
	}
	for name, tc := range tests {
		if got := SlotsNeeded(tc.share, tc.mem, tc.slots, tc.slot); got != tc.want {
			t.Errorf("%s: SlotsNeeded(%g, %d, %d, %d) = %d, want %d", name, tc.share, tc.mem, tc.slots, tc.slot, got, tc.want)
		}
	}
}

func TestSharePlacement(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		running []Job
		pending []Job
		starts  map[int64][]int64
		codes   map[int64]string
	}{
		"a share packs onto the fuller shared GPU (best fit)": {
			running: []Job{run(1, 1, time.Hour, time.Hour, ids(120, 121), share(0.5))},
			pending: []Job{pend(2, 2, 1, share(0.25))},
			starts:  map[int64][]int64{2: ids(122)},
		},
		"a half by memory takes two slots of one GPU": {
			running: []Job{run(1, 1, time.Hour, time.Hour, ids(120, 121, 122), share(0.75))},
			pending: []Job{pend(2, 2, 1, shareMem(40000))},
			starts:  map[int64][]int64{2: ids(130, 131)},
		},
		"whole jobs never take slots": {
			pending: []Job{pend(2, 2, 3)},
			codes:   map[int64]string{2: ReasonNoMatchingGPU},
		},
		"shares fill the shared GPUs, then wait": {
			pending: []Job{pend(2, 2, 1, share(1)), pend(3, 2, 1, share(0.75)), pend(4, 3, 1, share(0.25)),
				pend(5, 3, 1, share(0.25))},
			starts: map[int64][]int64{2: ids(120, 121, 122, 123), 3: ids(130, 131, 132), 4: ids(133)},
			codes:  map[int64]string{5: ReasonNoCapacity},
		},
		"whole and share side by side": {
			running: []Job{run(1, 1, time.Hour, time.Hour, ids(10, 11))},
			pending: []Job{pend(2, 2, 1), pend(3, 2, 1, share(0.5))},
			starts:  map[int64][]int64{3: ids(120, 121)},
			codes:   map[int64]string{2: ReasonNoCapacity},
		},
		"more memory than a shared GPU has never fits": {
			pending: []Job{pend(2, 2, 1, shareMem(90000))},
			codes:   map[int64]string{2: ReasonNoMatchingGPU},
		},
		"a share of a model the shared GPUs are not": {
			pending: []Job{pend(2, 2, 1, share(0.5), model("A100"))},
			codes:   map[int64]string{2: ReasonNoMatchingGPU},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mkShared()
			s.Running, s.Pending = tc.running, tc.pending
			pl := Schedule(s, cfg(PolicyFCFS))
			if tc.starts == nil {
				tc.starts = map[int64][]int64{}
			}
			if diff := cmp.Diff(tc.starts, startsOf(pl)); diff != "" {
				t.Errorf("starts (-want +got):\n%s", diff)
			}
			for id, code := range tc.codes {
				if got := whyOf(pl)[id]; got.Code != code {
					t.Errorf("job %d: code %q (%s), want %q", id, got.Code, got.Reason, code)
				}
			}
		})
	}
}

func TestSharePolicyKeys(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		change func(*Config)
		bad    string // the key named in the error; "" valid
	}{
		"defaults":             {change: func(*Config) {}},
		"warn only":            {change: func(c *Config) { c.GPUMemoryOverrun.Action = OverrunWarn }},
		"unknown action":       {change: func(c *Config) { c.GPUMemoryOverrun.Action = "kill" }, bad: "gpu_memory_overrun.action"},
		"negative grace":       {change: func(c *Config) { c.GPUMemoryOverrun.Grace = -1 }, bad: "gpu_memory_overrun.grace"},
		"session quarter":      {change: func(c *Config) { c.SessionGPUShare = 0.25 }},
		"session share over 1": {change: func(c *Config) { c.SessionGPUShare = 2 }, bad: "session_gpu_share"},
	}
	for name, tc := range tests {
		c := DefaultConfig()
		tc.change(&c)
		err := c.Validate()
		if (tc.bad == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.bad)) {
			t.Errorf("%s: Validate() = %v, want error naming %q", name, err, tc.bad)
		}
	}
	p := MemoryOverrunPolicy{}
	if p.Stops(t0, t0.Add(59*time.Second)) || !p.Stops(t0, t0.Add(time.Minute)) {
		t.Error("the default policy should stop after 60 s over, not before")
	}
	if (MemoryOverrunPolicy{Action: OverrunWarn}).Stops(t0, t0.Add(time.Hour)) {
		t.Error("a warn-only policy stops")
	}
}
