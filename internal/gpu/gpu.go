// Package gpu discovers GPUs and samples their telemetry. Providers: a fake
// one for development and tests (NVML arrives with the node agent).
package gpu

import "context"

// Device is a GPU as the host sees it at start: what does not change.
type Device struct {
	Index       int
	UUID        string
	Model       string
	MemoryMiB   int64
	NVLinkGroup *int
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
}

// Provider is a source of GPUs and their telemetry.
type Provider interface {
	// Devices lists the host's GPUs.
	Devices(ctx context.Context) ([]Device, error)
	// Sample reads every GPU's telemetry now.
	Sample(ctx context.Context) ([]Sample, error)
}
