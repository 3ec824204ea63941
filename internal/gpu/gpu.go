// Package gpu discovers GPUs and samples their telemetry. Providers: NVML
// for real GPUs, a fake one for development and tests. GPUs in MIG mode are
// offered as their MIG devices (MIGManager), laid out by an admin's Layout.
package gpu

import "context"

// Device is a GPU as the host sees it at start (what does not change), or
// a MIG device of one.
type Device struct {
	// Index is the GPU's NVML index; a MIG device's is its parent's.
	Index int
	// UUID is "GPU-…" for a GPU and "MIG-…" for a MIG device: what
	// CUDA_VISIBLE_DEVICES takes.
	UUID string
	// Model is the GPU's model; a MIG device's is its parent's.
	Model string
	// MemoryMiB is the device's memory: a MIG device's own share.
	MemoryMiB   int64
	NVLinkGroup *int
	// MIG describes a MIG device; nil for a whole GPU.
	MIG *MIGSlice
}

// Process is a compute process holding memory on a GPU.
type Process struct {
	PID       int
	User      string
	Name      string
	MemoryMiB int64
}

// Sample is one GPU's telemetry at one moment.
type Sample struct {
	UUID           string
	UtilizationPct int
	MemoryUsedMiB  int64
	TemperatureC   int
	PowerW         int
	PowerLimitW    int
	Health         string // "ok", "degraded", "failed"
	HealthReason   string
	Processes      []Process
	// NoUtilization is true when NVML gives no utilization for the device:
	// a MIG device's is its parent's, which NVML does not report while the
	// GPU is in MIG mode on most drivers.
	NoUtilization bool
}

// Provider is a source of GPUs and their telemetry.
type Provider interface {
	// Devices lists the host's GPUs.
	Devices(ctx context.Context) ([]Device, error)
	// Sample reads every GPU's telemetry now.
	Sample(ctx context.Context) ([]Sample, error)
}
