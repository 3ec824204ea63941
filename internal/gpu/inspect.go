package gpu

import "context"

// HostReport is what a pre-flight check (gpusched node doctor) reads of a
// host's GPUs beyond telemetry: driver, CUDA, and each GPU's settings.
type HostReport struct {
	DriverVersion string
	CUDAVersion   string // e.g. "12.4"; empty when unknown
	GPUs          []GPUReport
}

// GPUReport is one GPU's health and settings.
type GPUReport struct {
	Index        int
	UUID         string
	Model        string
	TemperatureC int
	// SlowdownC is the temperature at which the GPU throttles (0: unknown).
	SlowdownC int
	// ECCEnabled is nil when the GPU has no ECC.
	ECCEnabled *bool
	// ECCUncorrected counts uncorrected ECC errors since the driver loaded.
	ECCUncorrected uint64
	// RetiredPending is true when retired pages or remapped rows wait for a reset.
	RetiredPending bool
	// RetiredFailed is true when a row could not be remapped: the GPU needs service.
	RetiredFailed bool
	// RetiredPages counts pages retired for double-bit errors (older GPUs).
	RetiredPages int
	// MIG is nil when the GPU has no MIG; else whether MIG mode is on.
	MIG *bool
	// Persistence is nil when unknown; else whether persistence mode is on.
	Persistence *bool
	Processes   []Process
	// Lost is true when NVML cannot read the GPU at all.
	Lost bool
}

// Inspector is a Provider that can also report a host's driver and each
// GPU's settings.
type Inspector interface {
	Inspect(ctx context.Context) (HostReport, error)
}
