package gpu

import "context"

// Inspect implements Inspector: a simulated host with a recent driver,
// ECC on, MIG on for the GPUs split into MIG devices, persistence on, and
// the processes the simulation runs.
func (f *Fake) Inspect(ctx context.Context) (HostReport, error) {
	devs, err := f.Devices(ctx)
	if err != nil {
		return HostReport{}, err
	}
	samples, err := f.Sample(ctx)
	if err != nil {
		return HostReport{}, err
	}
	on, off := true, false
	rep := HostReport{DriverVersion: "550.54.15 (simulated)", CUDAVersion: "12.4"}
	for i, d := range devs {
		mig := &off
		f.mu.Lock()
		if _, split := f.layout[d.Index]; split {
			mig = &on
		}
		f.mu.Unlock()
		g := GPUReport{Index: d.Index, UUID: d.UUID, Model: d.Model, SlowdownC: 87, ECCEnabled: &on, MIG: mig, Persistence: &on}
		if i < len(samples) {
			g.TemperatureC = samples[i].TemperatureC
			g.Processes = samples[i].Processes
		}
		rep.GPUs = append(rep.GPUs, g)
	}
	return rep, nil
}
