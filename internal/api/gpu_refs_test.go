package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// GPU names as people write them: node:index, more indices on the same
// node after it, several nodes, and the cluster's ids as before.
func TestParseGPURefs(t *testing.T) {
	t.Parallel()
	n := func(node string, i int) api.GPURef { return api.GPURef{Node: node, Index: i} }
	tests := map[string]struct {
		in      string
		want    api.GPURefs
		wantErr string
		again   string // String() of the result; "" means in itself
	}{
		"one":                   {in: "sim-node-1:4", want: api.GPURefs{n("sim-node-1", 4)}},
		"indices on one node":   {in: "sim-node-1:4,5", want: api.GPURefs{n("sim-node-1", 4), n("sim-node-1", 5)}},
		"two nodes":             {in: "sim-node-1:4,sim-node-2:0", want: api.GPURefs{n("sim-node-1", 4), n("sim-node-2", 0)}},
		"two nodes, more each":  {in: "a:0,1,b:2,3", want: api.GPURefs{n("a", 0), n("a", 1), n("b", 2), n("b", 3)}},
		"spaces":                {in: " sim-node-1 : 4 , 5 ", want: api.GPURefs{n("sim-node-1", 4), n("sim-node-1", 5)}, again: "sim-node-1:4,5"},
		"ids":                   {in: "13,14", want: api.GPURefs{{ID: 13}, {ID: 14}}},
		"ids, then a node":      {in: "13,gpu-a:2", want: api.GPURefs{{ID: 13}, n("gpu-a", 2)}},
		"dotted node":           {in: "gpu.lab_1:7", want: api.GPURefs{n("gpu.lab_1", 7)}},
		"numeric node name":     {in: "42:1", want: api.GPURefs{n("42", 1)}},
		"empty":                 {in: "", wantErr: "empty GPU name"},
		"trailing comma":        {in: "sim-node-1:4,", wantErr: "empty GPU name"},
		"no index":              {in: "sim-node-1:", wantErr: "not a GPU index"},
		"negative index":        {in: "sim-node-1:-1", wantErr: "not a GPU index"},
		"index not a number":    {in: "sim-node-1:x", wantErr: "not a GPU index"},
		"bad node name":         {in: "sim node:1", wantErr: "not a node name"},
		"node starts with dash": {in: "-a:1", wantErr: "not a node name"},
		"word":                  {in: "gpu", wantErr: "not a GPU"},
		"zero id":               {in: "0", wantErr: "not a GPU"},
		"index after node bad":  {in: "a:1,x", wantErr: "not a GPU index"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := api.ParseGPURefs(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseGPURefs(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseGPURefs(%q): %v", tc.in, err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("ParseGPURefs(%q) (-want +got):\n%s", tc.in, d)
			}
			want := tc.again
			if want == "" {
				want = tc.in
			}
			if s := got.String(); s != want {
				t.Errorf("String() = %q, want %q", s, want)
			}
			back, err := api.ParseGPURefs(got.String())
			if d := cmp.Diff(got, back); err != nil || d != "" {
				t.Errorf("String() does not read back (%v):\n%s", err, d)
			}
		})
	}
}

// gpu_ids reads ids, names and one string of names; it writes ids where
// every GPU has one (what older servers read), else names.
func TestGPURefsJSON(t *testing.T) {
	t.Parallel()
	type body struct {
		GPUIDs api.GPURefs `json:"gpu_ids,omitempty"`
	}
	tests := map[string]struct {
		body    string
		want    api.GPURefs
		out     string
		problem string
	}{
		"ids":                {body: `{"gpu_ids":[13,14]}`, want: api.GPURefs{{ID: 13}, {ID: 14}}, out: `{"gpu_ids":[13,14]}`},
		"names":              {body: `{"gpu_ids":["sim-node-1:4","sim-node-1:5"]}`, want: api.GPURefs{{Node: "sim-node-1", Index: 4}, {Node: "sim-node-1", Index: 5}}, out: `{"gpu_ids":["sim-node-1:4","sim-node-1:5"]}`},
		"one string":         {body: `{"gpu_ids":"sim-node-1:4,5"}`, want: api.GPURefs{{Node: "sim-node-1", Index: 4}, {Node: "sim-node-1", Index: 5}}, out: `{"gpu_ids":["sim-node-1:4","sim-node-1:5"]}`},
		"a list item of two": {body: `{"gpu_ids":["a:1,2",7]}`, want: api.GPURefs{{Node: "a", Index: 1}, {Node: "a", Index: 2}, {ID: 7}}, out: `{"gpu_ids":["a:1","a:2","7"]}`},
		"empty list":         {body: `{"gpu_ids":[]}`, want: api.GPURefs{}, out: `{}`},
		"an object":          {body: `{"gpu_ids":{"a":1}}`, problem: "GPU ids or node:index names"},
		"a bad name":         {body: `{"gpu_ids":["a:"]}`, problem: "not a GPU index"},
		"a bool":             {body: `{"gpu_ids":[true]}`, problem: "GPU ids or node:index names"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b body
			err := json.Unmarshal([]byte(tc.body), &b)
			if tc.problem != "" {
				field, problem, ok := api.InvalidValue(err)
				if !ok || field != "gpu_ids" || !strings.Contains(problem, tc.problem) {
					t.Fatalf("decode %s: %v (field %q, problem %q); want gpu_ids: %q", tc.body, err, field, problem, tc.problem)
				}
				return
			}
			if err != nil {
				t.Fatalf("decode %s: %v", tc.body, err)
			}
			if d := cmp.Diff(tc.want, b.GPUIDs); d != "" {
				t.Fatalf("decode %s (-want +got):\n%s", tc.body, d)
			}
			out, err := json.Marshal(b)
			if err != nil || string(out) != tc.out {
				t.Errorf("encode: %s (%v), want %s", out, err, tc.out)
			}
		})
	}
}
