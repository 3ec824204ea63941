package main

import (
	"context"
	"strings"
	"testing"
)

// --fake-mig splits the --fake-gpus host: GPUs 0-3 of eight offered as
// 28 slices, the other four whole.
func TestNodeFakeMIG(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		gpus, mig string
		devices   int
		errHas    string
	}{
		"whole GPUs":        {gpus: "1x8:H100-80GB", devices: 8},
		"four split in 7":   {gpus: "1x8:H100-80GB", mig: "0-3:7x1g.10gb", devices: 28 + 4},
		"two 3g on one GPU": {gpus: "1x8:H100-80GB", mig: "gpu 4: 2×3g.40gb", devices: 2 + 7},
		"does not fit":      {gpus: "1x8:H100-80GB", mig: "0:2x4g.40gb", errHas: "at most 1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := NodeConfig{Name: "gpu-a", FakeGPUs: tc.gpus, FakeMIG: tc.mig}
			fake, err := c.fakeGPUs()
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			devs, err := fake.Schedulable(context.Background())
			if err != nil || len(devs) != tc.devices {
				t.Fatalf("%d schedulable devices (%v), want %d", len(devs), err, tc.devices)
			}
		})
	}
}
