package node

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scontrol show hostnames expands Slurm node lists as Slurm does: ranges
// and lists in brackets, zero padding, several bracket groups, names
// without brackets; with no list it expands SLURM_JOB_NODELIST.
func TestScontrolShowHostnames(t *testing.T) {
	t.Parallel()
	bin, err := writeShims(filepath.Join(t.TempDir(), "bin"))
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args []string
		env  string
		want string
	}{
		"range and a name":    {args: []string{"node[1-2],gpu-a"}, want: "node1\nnode2\ngpu-a\n"},
		"plain names":         {args: []string{"gpu-a,gpu-b"}, want: "gpu-a\ngpu-b\n"},
		"zero padded":         {args: []string{"n[08-11]"}, want: "n08\nn09\nn10\nn11\n"},
		"list in brackets":    {args: []string{"rack[1,3-4]"}, want: "rack1\nrack3\nrack4\n"},
		"two bracket groups":  {args: []string{"r[1-2]-n[1-2]"}, want: "r1-n1\nr1-n2\nr2-n1\nr2-n2\n"},
		"several arguments":   {args: []string{"a", "b[2-3]"}, want: "a\nb2\nb3\n"},
		"the job's node list": {env: "x[1-2],y", want: "x1\nx2\ny\n"},
		"hostlist":            {args: []string{"a[1-3]"}, want: "a1,a2,a3\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			verb := "hostnames"
			if name == "hostlist" {
				verb = "hostlist"
			}
			cmd := exec.Command("/bin/sh", append([]string{filepath.Join(bin, "scontrol"), "show", verb}, tc.args...)...)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "SLURM_JOB_NODELIST=" + tc.env}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if d := cmp.Diff(tc.want, string(out)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// srun runs its command once per task of this node, with each task's
// SLURM_PROCID and SLURM_LOCALID, spread over the step's nodes as Slurm's
// block distribution does, and fails with the first failing task.
func TestSrun(t *testing.T) {
	t.Parallel()
	bin, err := writeShims(filepath.Join(t.TempDir(), "bin"))
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		env  []string
		args []string
		want string
		rc   int
	}{
		"one task per node":          {env: []string{"SLURM_NNODES=2", "SLURM_NODEID=1", "SLURM_NTASKS=2"}, want: "1/0/2\n"},
		"the job's tasks":            {env: []string{"SLURM_NNODES=2", "SLURM_NODEID=1", "SLURM_NTASKS=16"}, want: "10/2/16\n11/3/16\n12/4/16\n13/5/16\n14/6/16\n15/7/16\n8/0/16\n9/1/16\n"},
		"ntasks-per-node, ignored":   {env: []string{"SLURM_NNODES=2", "SLURM_NODEID=0"}, args: []string{"--ntasks-per-node=2", "-l", "--gpus", "8", "--export=ALL"}, want: "0/0/4\n1/1/4\n"},
		"uneven -n":                  {env: []string{"SLURM_NNODES=2", "SLURM_NODEID=1"}, args: []string{"-n", "3"}, want: "2/0/3\n"},
		"a node outside the step":    {env: []string{"SLURM_NNODES=2", "SLURM_NODEID=1"}, args: []string{"-N1"}, want: ""},
		"one node, no job counts":    {want: "0/0/1\n"},
		"-n alone, fewer than nodes": {env: []string{"SLURM_NNODES=2", "SLURM_NODEID=1"}, args: []string{"-n", "1"}, want: ""},
		"--export sets variables":    {env: []string{"SLURM_NNODES=1", "SLURM_NODEID=0"}, args: []string{"--export=ALL,FAIL_TASK=0"}, want: "0/0/1\n", rc: 3},
		"a failing task fails srun":  {env: []string{"SLURM_NNODES=1", "SLURM_NODEID=0", "SLURM_NTASKS=3", "FAIL_TASK=1"}, want: "0/0/3\n1/1/3\n2/2/3\n", rc: 3},
	}
	script := `echo $SLURM_PROCID/$SLURM_LOCALID/$SLURM_NTASKS; [ "$SLURM_PROCID" != "$FAIL_TASK" ]  || exit 3`
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{filepath.Join(bin, "srun")}, tc.args...), "sh", "-c", script)
			cmd := exec.Command("/bin/sh", args...)
			cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, tc.env...)
			out, err := cmd.Output()
			rc := 0
			if ee, ok := err.(*exec.ExitError); ok {
				rc = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(out), "\n")
			slices.Sort(lines)
			if d := cmp.Diff(tc.want, strings.Join(lines, "")); d != "" || rc != tc.rc {
				t.Errorf("exit %d, want %d; output (-want +got):\n%s", rc, tc.rc, d)
			}
		})
	}
}
