package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// errMIGLayoutApplied ends a session after the agent changed its GPUs'
// MIG layout: it registers again at once with the devices it now offers.
var errMIGLayoutApplied = errors.New("node: MIG layout applied; registering the new devices")

// migState is what the agent keeps of the declared MIG layout: the report
// it last sent and the one to send with the next heartbeat.
type migState struct {
	mu      sync.Mutex
	sent    string
	pending *string
	// settled is the layout, kept and busy GPUs of the last pass that left
	// nothing to retry: while they stay the same the agent does not ask
	// the GPUs again.
	settled string
}

// take returns the report to send, once.
func (m *migState) take() *string {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pending
	m.pending = nil
	return p
}

// note queues report for the next heartbeat when it differs from the last.
func (m *migState) note(report string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if report == m.sent {
		return false
	}
	m.sent, m.pending = report, &report
	return true
}

// applyMIGLayout applies the layout the server declares (resp.MIGLayout)
// to the GPUs that are free: none of the agent's jobs runs on them and no
// booking holds them or starts on them soon (resp.MIGKeep); those keep
// their devices and wait. It logs and queues for the server a report of
// what it did and what waits, and returns errMIGLayoutApplied when it
// changed a GPU (the agent then registers its new devices).
func (a *Agent) applyMIGLayout(ctx context.Context, resp *api.HeartbeatResponse) error {
	m, ok := a.GPUs.(gpu.MIGManager)
	if !ok || resp.MIGLayout == nil {
		return nil
	}
	want, err := gpu.ParseLayout(*resp.MIGLayout)
	if err != nil {
		a.reportMIG(fmt.Sprintf("the declared layout does not parse: %v", err))
		return nil
	}
	devs, err := m.Schedulable(ctx)
	if err != nil {
		return fmt.Errorf("node: MIG layout: %w", err)
	}
	have := gpu.Layout{}
	for _, d := range devs {
		if d.MIG != nil {
			have[d.Index] = append(have[d.Index], d.MIG.Profile)
		}
	}
	running := slices.Sorted(slices.Values(a.runningGPUs()))
	sig := fmt.Sprint(*resp.MIGLayout, resp.MIGKeep, running)
	a.mig.mu.Lock()
	same := a.mig.settled == sig
	a.mig.mu.Unlock()
	if same {
		return nil
	}
	why := map[int]string{}
	for _, i := range resp.MIGKeep {
		why[i] = "a booking holds it or starts on it soon"
	}
	for _, i := range running {
		why[i] = "a job runs on it"
	}
	eff := gpu.Layout{}
	var waits []string
	for _, i := range indicesOf(want, have) {
		switch reason, busy := why[i]; {
		case busy && !sameLayout(have[i], want[i]):
			eff[i] = have[i]
			waits = append(waits, fmt.Sprintf("%s waits: %s", wantText(i, want[i]), reason))
		default:
			eff[i] = want[i]
		}
	}
	for i, d := range eff {
		if d == nil {
			delete(eff, i)
		}
	}
	changes, err := m.ApplyLayout(ctx, eff, false)
	var lines []string
	applied, retry := false, err != nil
	for _, c := range changes {
		if c.Action == gpu.LayoutUnchanged {
			continue
		}
		applied = applied || c.Action == gpu.LayoutApplied
		retry = retry || c.Action != gpu.LayoutApplied
		lines = append(lines, c.String())
	}
	if err != nil && len(changes) == 0 {
		lines = append(lines, err.Error())
	}
	lines = append(lines, waits...)
	if len(lines) == 0 {
		lines = []string{"the GPUs match the declared layout " + *resp.MIGLayout}
	}
	a.reportMIG(strings.Join(lines, "; "))
	if !applied && !retry {
		a.mig.mu.Lock()
		a.mig.settled = sig
		a.mig.mu.Unlock()
	}
	if applied {
		return errMIGLayoutApplied
	}
	return nil
}

// reportMIG logs a new report of the declared layout and queues it for
// the server.
func (a *Agent) reportMIG(report string) {
	if a.mig.note(report) {
		a.Logger.Info("node: MIG layout: " + report)
	}
}

// indicesOf lists the GPU indices two layouts name, in order.
func indicesOf(ls ...gpu.Layout) []int {
	var out []int
	for _, l := range ls {
		for i := range l {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sameLayout reports whether two GPUs' devices match in any order.
func sameLayout(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// wantText is what GPU i should become: "gpu 0: 7×1g.10gb", "gpu 0: whole".
func wantText(i int, devs []string) string {
	if devs == nil {
		return fmt.Sprintf("gpu %d: whole", i)
	}
	return gpu.Layout{i: devs}.String()
}
