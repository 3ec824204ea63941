package gpu

import (
	"context"
	"fmt"
	"math"
)

// DeviceKind says what a schedulable device is: a whole GPU, or a MIG
// device (a slice of one).
type DeviceKind string

// The kinds of device.
const (
	KindWhole DeviceKind = "whole"
	KindMIG   DeviceKind = "mig"
)

// MIGSlice describes a MIG device: one compute instance of a GPU instance
// on a GPU in MIG mode. CUDA names it by its UUID (MIG-…).
type MIGSlice struct {
	ParentUUID string
	// Profile is its name as nvidia-smi prints it, e.g. "1g.10gb" or
	// "3g.40gb"; "1c.3g.40gb" when its compute instance is smaller than its
	// GPU instance.
	Profile string
	// Slices counts its compute slices; ParentSlices those of the whole GPU
	// (7 on an A100 or H100), so a slice is Slices/ParentSlices of a GPU.
	Slices       int
	ParentSlices int
	// GPUInstanceID and ComputeInstanceID are NVML's ids of its instances
	// on the parent: processes on a MIG GPU name them.
	GPUInstanceID     int
	ComputeInstanceID int
	// Start is the first memory slice its GPU instance occupies.
	Start int
}

// Fraction is the share of its parent's compute a MIG device has: 1/7 for
// a 1g profile on an H100.
func (m MIGSlice) Fraction() float64 {
	if m.ParentSlices <= 0 {
		return 0
	}
	return float64(m.Slices) / float64(m.ParentSlices)
}

// Kind says whether d is a whole GPU or a MIG device.
func (d Device) Kind() DeviceKind {
	if d.MIG != nil {
		return KindMIG
	}
	return KindWhole
}

// Profile is a GPU-instance profile a MIG-capable GPU offers, as NVML
// describes it.
type Profile struct {
	ID int // NVML's GPU_INSTANCE_PROFILE_* value, which asks for it
	// NVMLID is the id NVML gives it in its answers (GPU instances name it).
	NVMLID    int
	Name      string // e.g. "1g.10gb", "1g.10gb+me", "7g.80gb"
	Slices    int    // compute slices
	MemoryMiB int64
	// Instances is how many of it one GPU holds at most.
	Instances int
	SMs       int
	// Placements are where on the GPU's memory slices an instance may sit.
	Placements []Placement
}

// Placement is a run of a GPU's memory slices: [Start, Start+Size).
type Placement struct{ Start, Size int }

// profileName names a GPU-instance profile as nvidia-smi does: GPU slices,
// memory in GB and the profile's variant suffix ("1g.10gb", "1g.10gb+me").
// The memory is the profile's share of the GPU rounded up to eighths, times
// the GPU's memory in whole GB: a 9.75 GiB slice of an 80 GB H100 is "10gb".
func profileName(slices int, memMiB, totalMiB int64, suffix string) string {
	gb := int64(0)
	if totalMiB > 0 {
		frac := math.Ceil(float64(memMiB)/float64(totalMiB)*8) / 8
		gb = int64(math.Round(frac * float64((totalMiB+1023)/1024)))
	}
	return fmt.Sprintf("%dg.%dgb%s", slices, gb, suffix)
}

// deviceProfile names a MIG device: its GPU instance's profile, prefixed
// with its compute slices when its compute instance is smaller
// ("1c.3g.40gb").
func deviceProfile(ciSlices int, gi Profile) string {
	if ciSlices > 0 && ciSlices != gi.Slices {
		return fmt.Sprintf("%dc.%s", ciSlices, gi.Name)
	}
	return gi.Name
}

// MIGManager is a Provider whose GPUs can be split into MIG devices: NVML
// on MIG-capable GPUs, and the fake.
type MIGManager interface {
	Provider
	// Schedulable lists what jobs can be given: each GPU outside MIG mode
	// whole, and the MIG devices of each GPU in MIG mode (never that GPU
	// whole).
	Schedulable(ctx context.Context) ([]Device, error)
	// SampleMIG reads every MIG device's telemetry now: its memory, its
	// processes, and its parent's utilization, temperature and power.
	SampleMIG(ctx context.Context) ([]Sample, error)
	// ApplyLayout makes the GPUs match l where they are free and says, per
	// GPU, what it did; with dryRun it only says what it would do.
	ApplyLayout(ctx context.Context, l Layout, dryRun bool) ([]LayoutChange, error)
}

// LayoutAction is what applying a layout did to one GPU.
type LayoutAction string

// What ApplyLayout did to a GPU.
const (
	LayoutUnchanged LayoutAction = "unchanged"   // it already matched
	LayoutApplied   LayoutAction = "applied"     // it matches now
	LayoutWouldDo   LayoutAction = "would apply" // a dry run: it differs
	LayoutBusy      LayoutAction = "busy"        // it differs, but processes hold it
	LayoutPending   LayoutAction = "needs reset" // the MIG mode change waits for a GPU reset
	LayoutFailed    LayoutAction = "failed"      // the layout does not fit, or NVML refused
)

// LayoutChange is what applying a layout did, or would do, to one GPU.
type LayoutChange struct {
	Index int
	UUID  string
	// Had and Want are the GPU's MIG devices by profile name before and as
	// asked; nil means the GPU whole (MIG off).
	Had, Want []string
	Action    LayoutAction
	// Detail says why, or what was done, in a sentence.
	Detail string
}

// String is the change as node doctor prints it.
func (c LayoutChange) String() string {
	s := fmt.Sprintf("gpu %d: %s", c.Index, c.Action)
	if c.Action != LayoutUnchanged {
		s += fmt.Sprintf(" (had %s, want %s)", slicesText(c.Had), slicesText(c.Want))
	} else {
		s += " (" + slicesText(c.Want) + ")"
	}
	if c.Detail != "" {
		s += ": " + c.Detail
	}
	return s
}
