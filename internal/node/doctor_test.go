package node_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// statuses maps each check's name to its grade.
func statuses(checks []node.Check) map[string]node.Status {
	out := map[string]node.Status{}
	for _, c := range checks {
		if prev, ok := out[c.Name]; !ok || c.Status == node.Fail || (c.Status == node.Warn && prev == node.OK) {
			out[c.Name] = c.Status
		}
	}
	return out
}

// A simulated host with a good token reads clean: every line OK (run-as
// warns when the tests do not run as root).
func TestDoctorFakeGPUsReadsClean(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.NodeToken(t, "gpu-doc")
	spec, _ := gpu.ParseFakeSpec("1x8:H100-80GB")
	d := &node.Doctor{GPUs: gpu.NewFake("gpu-doc", spec), Client: apiclient.New(s.URL, tok), StateDir: t.TempDir()}
	checks := d.Run(context.Background())
	var buf bytes.Buffer
	if err := node.WriteReport(&buf, checks); err != nil {
		t.Fatal(err)
	}
	t.Logf("doctor:\n%s", buf.String())
	for _, c := range checks {
		if c.Status != node.OK && c.Name != "run-as" {
			t.Errorf("%s: %s %s", c.Name, c.Status, c.Detail)
		}
	}
	st := statuses(checks)
	for _, name := range []string{"nvml", "driver", "gpu 0", "gpu 7", "mig", "persistence", "processes", "state-dir", "server", "clock"} {
		if st[name] != node.OK {
			t.Errorf("check %q = %q, want OK", name, st[name])
		}
	}
	if !strings.Contains(buf.String(), `node "gpu-doc"`) {
		t.Errorf("the server line does not name the token's node:\n%s", buf.String())
	}
}

// The lines that must fail or warn, each with a fix.
func TestDoctorFailures(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.NodeToken(t, "gpu-skew")
	spec, _ := gpu.ParseFakeSpec("1x2:H100-80GB")
	tests := []struct {
		name string
		d    node.Doctor
		want map[string]node.Status
	}{
		{"no NVML", node.Doctor{GPUErr: gpu.ErrNoNVML},
			map[string]node.Status{"nvml": node.Fail, "server": node.Warn}},
		{"token refused", node.Doctor{GPUs: gpu.NewFake("a", spec), Client: apiclient.New(s.URL, "gsn_bogus")},
			map[string]node.Status{"nvml": node.OK, "server": node.Fail}},
		{"server unreachable", node.Doctor{GPUs: gpu.NewFake("a", spec), Client: apiclient.New("http://127.0.0.1:1", tok)},
			map[string]node.Status{"server": node.Fail}},
		{"clock a minute late", node.Doctor{GPUs: gpu.NewFake("a", spec), Client: apiclient.New(s.URL, tok),
			Now: func() time.Time { return time.Now().Add(-time.Minute) }},
			map[string]node.Status{"server": node.OK, "clock": node.Fail}},
		{"clock 5 s late", node.Doctor{GPUs: gpu.NewFake("a", spec), Client: apiclient.New(s.URL, tok),
			Now: func() time.Time { return time.Now().Add(-5 * time.Second) }},
			map[string]node.Status{"clock": node.Warn}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := tc.d
			d.StateDir = t.TempDir()
			checks := d.Run(context.Background())
			got := statuses(checks)
			for name := range got {
				if _, ok := tc.want[name]; !ok {
					delete(got, name)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("grades (-want +got):\n%s", diff)
			}
			for _, c := range checks {
				if c.Status != node.OK && c.Fix == "" {
					t.Errorf("%s is %s without a fix", c.Name, c.Status)
				}
			}
			if node.Failed(checks) != hasFail(tc.want) {
				t.Errorf("Failed = %v", node.Failed(checks))
			}
		})
	}
}

func hasFail(m map[string]node.Status) bool {
	for _, s := range m {
		if s == node.Fail {
			return true
		}
	}
	return false
}

// sick is a host whose GPUs show every fault the doctor grades.
type sick struct{ *gpu.Fake }

func (s sick) Inspect(ctx context.Context) (gpu.HostReport, error) {
	rep, err := s.Fake.Inspect(ctx)
	if err != nil {
		return rep, err
	}
	off, on := false, true
	g := rep.GPUs
	g[0].Lost = true
	g[1].RetiredFailed = true
	g[2].RetiredPending = true
	g[3].ECCUncorrected = 3
	g[4].TemperatureC = 86
	g[5].ECCEnabled = &off
	g[6].MIG = &on
	g[7].Persistence = &off
	g[7].Processes = []gpu.Process{{PID: 4242, User: "bo", Name: "python", MemoryMiB: 1024}}
	return rep, nil
}

func TestDoctorGradesGPUFaults(t *testing.T) {
	t.Parallel()
	spec, _ := gpu.ParseFakeSpec("1x8:H100-80GB")
	d := &node.Doctor{GPUs: sick{gpu.NewFake("sick", spec)}, StateDir: t.TempDir()}
	got := statuses(d.Run(context.Background()))
	want := map[string]node.Status{"gpu 0": node.Fail, "gpu 1": node.Fail, "gpu 2": node.Warn, "gpu 3": node.Warn,
		"gpu 4": node.Warn, "gpu 5": node.Warn, "gpu 6": node.OK, "gpu 7": node.OK,
		"mig": node.Warn, "persistence": node.Warn, "processes": node.Warn}
	for name := range got {
		if _, ok := want[name]; !ok {
			delete(got, name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("grades (-want +got):\n%s", diff)
	}
}

// With fake MIG the doctor shows the layout the agent offers, and, given
// the layout wanted, what applying it would change on each GPU: GPUs that
// match say nothing, one that would be split warns, one whose layout does
// not fit fails.
func TestDoctorShowsMIGLayout(t *testing.T) {
	t.Parallel()
	spec, _ := gpu.ParseFakeSpec("1x8:H100-80GB")
	spec, err := spec.WithMIG("0-3:7x1g.10gb")
	if err != nil {
		t.Fatal(err)
	}
	want, err := gpu.ParseLayout("gpu 0-3: 7x1g.10gb; gpu 4: 2x3g.40gb; gpu 5: 3x3g.40gb")
	if err != nil {
		t.Fatal(err)
	}
	d := &node.Doctor{GPUs: gpu.NewFake("mig", spec), StateDir: t.TempDir(), MIGLayout: want}
	var got []string
	for _, c := range d.Run(context.Background()) {
		if strings.HasPrefix(c.Name, "mig") {
			got = append(got, fmt.Sprintf("%s %s: %s", c.Status, c.Name, c.Detail))
		}
	}
	wantLines := []string{
		"OK mig: MIG layout gpu 0-3: 7×1g.10gb: 28 MIG devices offered as slices (jobs ask for them by profile, e.g. --gpu-type 1g.10gb), 4 GPUs whole",
		"WARN mig layout: gpu 4: would apply (had whole, want 2×3g.40gb)",
		"FAIL mig layout: gpu 5: failed (had whole, want 3×3g.40gb): 3×3g.40gb: at most 2 fit on this GPU",
	}
	if diff := cmp.Diff(wantLines, got); diff != "" {
		t.Errorf("MIG lines (-want +got):\n%s", diff)
	}
}

// node doctor shows the GPUs shared and their slots, and warns of shared
// GPUs the host lacks or has in MIG mode.
func TestDoctorShowsSharedGPUs(t *testing.T) {
	t.Parallel()
	spec, _ := gpu.ParseFakeSpec("1x4:H100-80GB")
	spec, err := spec.WithMIG("3:7x1g.10gb")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := node.ParseSharedGPUs("0-1:4;3:2;9:2", 4)
	if err != nil {
		t.Fatal(err)
	}
	d := &node.Doctor{GPUs: gpu.NewFake("shared", spec), StateDir: t.TempDir(), Shared: shared}
	var got []string
	for _, c := range d.Run(context.Background()) {
		if c.Name == "shared gpus" {
			got = append(got, fmt.Sprintf("%s %s: %s", c.Status, c.Name, c.Detail))
		}
	}
	wantLines := []string{
		"OK shared gpus: GPU 0: 4 slots of 20389 MiB; GPU 1: 4 slots of 20389 MiB; MPS off: GPUSCHED_GPU_MEMORY_LIMIT is the jobs' to keep",
		"WARN shared gpus: GPU 3 is in MIG mode: offered as its MIG devices, not shared; GPU 9 is not on this host",
	}
	if diff := cmp.Diff(wantLines, got); diff != "" {
		t.Errorf("shared lines (-want +got):\n%s", diff)
	}
}
