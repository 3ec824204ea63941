package cli

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
)

// allClient is every client command, in help's order.
var allClient = []string{"submit", "sbatch", "queue", "history", "cancel", "squeue", "scancel", "sacct", "renew", "run", "logs", "login", "book", "bookings", "usage", "version", "healthcheck", "notebook", "session", "mig-layout"}

// One call builds only the command it runs; help, completion, a flag first
// or a misspelling see every command.
func TestNewRootForBuildsTheNamedCommand(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args       []string
		want       []string
		completion bool
	}{
		"submit":             {args: []string{"submit", "-g", "2", "--", "python", "train.py"}, want: []string{"submit"}},
		"bookings subtree":   {args: []string{"bookings", "edit", "7"}, want: []string{"bookings"}},
		"no arguments":       {want: allClient, completion: true},
		"help":               {args: []string{"help", "submit"}, want: allClient, completion: true},
		"flag first":         {args: []string{"--help"}, want: allClient, completion: true},
		"misspelling":        {args: []string{"submt"}, want: allClient, completion: true},
		"shell completion":   {args: []string{"__complete", "su"}, want: allClient, completion: true},
		"a server command":   {args: []string{"serve", "--dev"}, want: allClient, completion: true},
		"command name later": {args: []string{"--", "submit"}, want: allClient, completion: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := NewRootFor(testBuild, tt.args)
			var got []string
			for _, c := range root.Commands() {
				got = append(got, c.Name())
			}
			want := slices.Clone(tt.want)
			slices.Sort(want) // cobra lists commands sorted
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("commands (-want +got):\n%s", diff)
			}
			if root.CompletionOptions.DisableDefaultCmd == tt.completion {
				t.Errorf("completion command offered: %v, want %v", !root.CompletionOptions.DisableDefaultCmd, tt.completion)
			}
		})
	}
}

// The commands that send one request end on SIGINT like any small program;
// those that wait (run withdraws its request, logs -f stops) and the
// server's see their context cancelled.
func TestOneShotCommands(t *testing.T) {
	t.Parallel()
	oneShots := []string{"submit", "sbatch", "queue", "cancel", "squeue", "scancel", "sacct", "renew", "book", "usage", "version", "mig-layout"}
	for _, name := range allClient {
		c, _, err := NewRoot(testBuild).Find([]string{name})
		if err != nil {
			t.Fatalf("find %s: %v", name, err)
		}
		if got, want := c.Annotations[annotationOneShot] != "", slices.Contains(oneShots, name); got != want {
			t.Errorf("%s: one-shot %v, want %v", name, got, want)
		}
	}
}

// The client names Ray's runtime_env variable without linking the server's
// Ray client: the two names must stay the same.
func TestRayRuntimeEnvVar(t *testing.T) {
	t.Parallel()
	if rayRuntimeEnvVar != ray.RuntimeEnvVar {
		t.Errorf("rayRuntimeEnvVar = %q, ray.RuntimeEnvVar = %q", rayRuntimeEnvVar, ray.RuntimeEnvVar)
	}
}
