package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRayConfig(t *testing.T) {
	t.Parallel()
	header := filepath.Join(t.TempDir(), "ray-auth")
	if err := os.WriteFile(header, []byte("Authorization: Bearer s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		env          map[string]string
		want         RayConfig
		wantExecutor string
		err          string
	}{
		"no ray": {want: RayConfig{LostAfter: 2 * time.Minute, StopTimeout: time.Minute, SyncEvery: 2 * time.Second}, wantExecutor: "node"},
		"ray with auth from a file and a node map": {
			env: map[string]string{"GPUSCHED_RAY_ADDRESS": "http://ray-head:8265/", "GPUSCHED_RAY_AUTH_HEADER_FILE": header,
				"GPUSCHED_RAY_NODES": "gpu-a=10.0.0.5, gpu-b = 10.0.0.6", "GPUSCHED_RAY_LOST_AFTER": "5m"},
			want: RayConfig{Address: "http://ray-head:8265", AuthHeader: "Authorization: Bearer s3cret",
				Nodes:     map[string]string{"gpu-a": "10.0.0.5", "gpu-b": "10.0.0.6"},
				LostAfter: 5 * time.Minute, StopTimeout: time.Minute, SyncEvery: 2 * time.Second},
			wantExecutor: "ray",
		},
		"ray but node by default": {
			env:  map[string]string{"GPUSCHED_RAY_ADDRESS": "https://ray.lab", "GPUSCHED_DEFAULT_EXECUTOR": "node"},
			want: RayConfig{Address: "https://ray.lab", LostAfter: 2 * time.Minute, StopTimeout: time.Minute, SyncEvery: 2 * time.Second}, wantExecutor: "node",
		},
		"bad address":         {env: map[string]string{"GPUSCHED_RAY_ADDRESS": "ray-head:8265"}, err: "GPUSCHED_RAY_ADDRESS"},
		"bad node map":        {env: map[string]string{"GPUSCHED_RAY_NODES": "gpu-a"}, err: "GPUSCHED_RAY_NODES"},
		"bad header":          {env: map[string]string{"GPUSCHED_RAY_ADDRESS": "http://r:8265", "GPUSCHED_RAY_AUTH_HEADER": "Bearer x"}, err: "Name: value"},
		"ray default, no ray": {env: map[string]string{"GPUSCHED_DEFAULT_EXECUTOR": "ray"}, err: "needs GPUSCHED_RAY_ADDRESS"},
		"unknown executor":    {env: map[string]string{"GPUSCHED_DEFAULT_EXECUTOR": "slurm"}, err: "must be node, lease or ray"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := loadConfig(nil, envOf(tc.env))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, c.Ray); d != "" {
				t.Errorf("ray config (-want +got):\n%s", d)
			}
			if c.DefaultExecutor != tc.wantExecutor {
				t.Errorf("default executor %q, want %q", c.DefaultExecutor, tc.wantExecutor)
			}
			if name, value := c.Ray.header(); c.Ray.AuthHeader != "" && (name != "Authorization" || value != "Bearer s3cret") {
				t.Errorf("header %q: %q", name, value)
			}
		})
	}
}
