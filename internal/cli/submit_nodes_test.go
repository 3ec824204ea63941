package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// submit's --nodes N --gpus-per-node G asks for N × G GPUs that may span
// nodes; contradictions are refused.
func TestNodeShape(t *testing.T) {
	t.Parallel()
	type shape struct {
		GPUs  int
		Multi bool
		Err   string
	}
	tests := map[string]struct {
		args []string
		want shape
	}{
		"two nodes of eight": {args: []string{"--nodes", "2", "--gpus-per-node", "8"}, want: shape{GPUs: 16, Multi: true}},
		"-N with -g":         {args: []string{"-N", "2", "-g", "12"}, want: shape{GPUs: 12, Multi: true}},
		"agreeing -g":        {args: []string{"-N", "2", "--gpus-per-node", "4", "-g", "8"}, want: shape{GPUs: 8, Multi: true}},
		"one node":           {args: []string{"--nodes", "1", "--gpus-per-node", "4"}, want: shape{GPUs: 4}},
		"plain -g":           {args: []string{"-g", "3"}, want: shape{GPUs: 3}},
		"per node alone":     {args: []string{"--gpus-per-node", "4"}, want: shape{GPUs: 1, Err: "--gpus-per-node needs --nodes"}},
		"contradicting -g":   {args: []string{"-N", "2", "--gpus-per-node", "8", "-g", "4"}, want: shape{GPUs: 4, Err: "-g 4 is not --nodes 2 × --gpus-per-node 8; give one or the other"}},
		"negative":           {args: []string{"-N", "-1"}, want: shape{GPUs: 1, Err: "--nodes and --gpus-per-node must be positive"}},
		"--multi-node, kept": {args: []string{"-g", "16", "--multi-node"}, want: shape{GPUs: 16, Multi: true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := newSubmitCmd()
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			f := cmd.Flags()
			gpus, _ := f.GetInt("gpus")
			nodes, _ := f.GetInt("nodes")
			per, _ := f.GetInt("gpus-per-node")
			multi, _ := f.GetBool("multi-node")
			got := shape{}
			if err := nodeShape(cmd, &gpus, nodes, per, &multi); err != nil {
				got.Err = err.Error()
			}
			got.GPUs, got.Multi = gpus, multi
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
