//go:build !cgo

package gpu

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoNVML means NVML could not be loaded or initialised: no NVIDIA
// driver on this host, or no permission to use it.
var ErrNoNVML = errors.New("NVML is not available")

// NVML stands in for the NVML provider in binaries built without cgo,
// which cannot load the NVIDIA library.
type NVML struct{}

// NewNVML reports that this binary cannot read GPUs through NVML.
func NewNVML() (*NVML, error) {
	return nil, fmt.Errorf("gpu: %w: this gpusched was built without cgo (CGO_ENABLED=0); build it with cgo, or run with --fake-gpus", ErrNoNVML)
}

// Close implements the NVML provider's Close.
func (*NVML) Close() error { return nil }

// Devices implements Provider.
func (*NVML) Devices(context.Context) ([]Device, error) { return nil, ErrNoNVML }

// Sample implements Provider.
func (*NVML) Sample(context.Context) ([]Sample, error) { return nil, ErrNoNVML }

// NVMLCompiledIn says whether this binary can read real GPUs through NVML:
// not in a build without cgo.
const NVMLCompiledIn = false

// Schedulable implements MIGManager.
func (*NVML) Schedulable(context.Context) ([]Device, error) { return nil, ErrNoNVML }

// SampleMIG implements MIGManager.
func (*NVML) SampleMIG(context.Context) ([]Sample, error) { return nil, ErrNoNVML }

// ApplyLayout implements MIGManager.
func (*NVML) ApplyLayout(context.Context, Layout, bool) ([]LayoutChange, error) {
	return nil, ErrNoNVML
}
