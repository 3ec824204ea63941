package cli

import "testing"

// A submission's command: several arguments are argv, quoted where a shell
// would split them; one argument alone is a command line, as ssh and
// sbatch --wrap take it.
func TestCommandLine(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		want string
	}{
		"argv":                   {[]string{"python", "train.py", "--lr", "3e-4"}, "python train.py --lr 3e-4"},
		"argv with spaces":       {[]string{"echo", "a b", "it's"}, `echo 'a b' 'it'\''s'`},
		"one command line":       {[]string{"python prep.py && python train.py"}, "python prep.py && python train.py"},
		"one word":               {[]string{"nvidia-smi"}, "nvidia-smi"},
		"sh -c stays quoted":     {[]string{"sh", "-c", "echo $X; sleep 1"}, `sh -c 'echo $X; sleep 1'`},
		"empty argument of many": {[]string{"printf", ""}, "printf ''"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := commandLine(tc.args); got != tc.want {
				t.Errorf("commandLine(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}
