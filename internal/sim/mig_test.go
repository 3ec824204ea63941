package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseMIG(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec string
		want []MIGGroup
		err  string
	}{
		"none":            {spec: "", want: nil},
		"seven 1g":        {spec: "4x7:1g.10gb", want: []MIGGroup{{4, 7, "1g.10gb"}}},
		"two groups":      {spec: "4x7:1g.10gb + 2x2:3G.40GB", want: []MIGGroup{{4, 7, "1g.10gb"}, {2, 2, "3g.40gb"}}},
		"too many slices": {spec: "1x3:3g.40gb", err: "take 9 compute slices"},
		"not a profile":   {spec: "1x7:H100", err: "not a MIG profile"},
		"no shape":        {spec: "1g.10gb", err: "not GPUSxPERGPU:PROFILE"},
		"zero GPUs":       {spec: "0x7:1g.10gb", err: "not GPUSxPERGPU:PROFILE"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseMIG(tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseMIG(%q) = %v, %v; want an error saying %q", tc.spec, got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("ParseMIG(%q) (-want +got)\n%s", tc.spec, d)
			}
		})
	}
}

// The rule: a fractional job takes one slice of the smallest profile that
// holds its share, else of the largest; whole-GPU jobs stay whole.
func TestAssignSlices(t *testing.T) {
	t.Parallel()
	c := Cluster{Nodes: 1, GPUsPerNode: 8, Model: "H100", MIG: []MIGGroup{{2, 7, "1g.10gb"}, {1, 2, "3g.40gb"}}}
	jobs := []Job{{GPUs: 1, Share: 0.1}, {GPUs: 1, Share: 0.3}, {GPUs: 1, Share: 0.8}, {GPUs: 1}, {GPUs: 2}}
	if n := assignSlices(jobs, c); n != 3 {
		t.Errorf("%d jobs on slices, want 3", n)
	}
	var got []string
	for _, j := range jobs {
		got = append(got, j.Profile)
	}
	if d := cmp.Diff([]string{"1g.10gb", "3g.40gb", "3g.40gb", "", ""}, got); d != "" {
		t.Errorf("profiles (-want +got)\n%s", d)
	}
}

// The layout splits the first GPUs in node order: on 1x2 with 1x7:1g.10gb,
// GPU 0 is seven slices (IDs 1–7), GPU 1 whole (ID 8).
func TestClusterInventoryMIG(t *testing.T) {
	t.Parallel()
	c := Cluster{Nodes: 1, GPUsPerNode: 2, Model: "H100", MIG: []MIGGroup{{1, 7, "1g.10gb"}}}
	_, gpus, slow, frac := c.inventory()
	if len(gpus) != 8 || len(slow) != 9 || len(frac) != 9 {
		t.Fatalf("%d devices, %d slowdowns, %d fractions", len(gpus), len(slow), len(frac))
	}
	for _, g := range gpus {
		wantIdx, wantProfile, wantFrac := 0, "1g.10gb", 1.0/7
		if g.ID == 8 {
			wantIdx, wantProfile, wantFrac = 1, "", 1
		}
		if g.Index != wantIdx || g.Profile != wantProfile || frac[g.ID] != wantFrac || slow[g.ID] != 1 {
			t.Errorf("device %d: %+v, fraction %v", g.ID, g, frac[g.ID])
		}
	}
}

// Seven fractional jobs and a whole-GPU one, all at once, for an hour, on
// two GPUs: with one GPU as seven slices all eight run at once, and the
// slices count as 1/7 of a GPU each; with both GPUs whole they run two at
// a time. Both replays see the same arrivals.
func TestMIGReplay(t *testing.T) {
	t.Parallel()
	var jobs []Job
	for i := range 7 {
		jobs = append(jobs, Job{ID: int64(i + 1), User: 1, GPUs: 1, Share: 0.1, Runtime: time.Hour})
	}
	jobs = append(jobs, Job{ID: 8, User: 2, GPUs: 1, Runtime: time.Hour})
	c := Cluster{Nodes: 1, GPUsPerNode: 2, Model: "H100", MIG: []MIGGroup{{1, 7, "1g.10gb"}}}
	w, err := Prepare(jobs, c, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		w        *Workload
		lastEnd  time.Duration
		busyGPUs float64 // GPU-seconds held
	}{
		"MIG":   {w, time.Hour, 7.0/7*3600 + 3600},
		"whole": {w.WithoutMIG(), 4 * time.Hour, 8 * 3600},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := Run(tc.w, fcfsConfig(t))
			if err != nil {
				t.Fatal(err)
			}
			var last time.Duration
			for _, rec := range r.Records {
				if !rec.Done {
					t.Fatalf("job %d did not complete", rec.Job.ID)
				}
				last = max(last, rec.End)
			}
			if last != tc.lastEnd || r.BusyGPUSeconds < tc.busyGPUs-1e-6 || r.BusyGPUSeconds > tc.busyGPUs+1e-6 {
				t.Errorf("last end %v, %v GPU-s held; want %v, %v", last, r.BusyGPUSeconds, tc.lastEnd, tc.busyGPUs)
			}
		})
	}
	if w.SliceJobs != 7 || w.WithoutMIG().SliceJobs != 0 || w.Jobs[0].Profile != "1g.10gb" {
		t.Errorf("slice jobs %d, without MIG %d, first job %+v", w.SliceJobs, w.WithoutMIG().SliceJobs, w.Jobs[0])
	}
}

// --mig-stretch: a job that used half a GPU takes 3.5 times its runtime
// on a 1g slice.
func TestMIGStretch(t *testing.T) {
	t.Parallel()
	c := Cluster{Nodes: 1, GPUsPerNode: 1, Model: "H100", MIG: []MIGGroup{{1, 7, "1g.10gb"}}}
	w, err := Prepare([]Job{{ID: 1, User: 1, GPUs: 1, Share: 0.5, Runtime: time.Hour}}, c, PrepareOptions{MIGStretch: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(w, fcfsConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Records[0].End; got != 210*time.Minute {
		t.Errorf("ended at %v, want 3h30m", got)
	}
}
