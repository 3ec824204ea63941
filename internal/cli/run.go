package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/lighthttp"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// runOptions are `gpusched run`'s flags, sent to the local agent's /acquire.
type runOptions struct {
	gpus                           int
	gpuType, mem, time, name, prio string
}

func newRunCmd() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [-g N] [--gpu-type T] [--mem 40G] [--time 2h] [--name X] [--priority P] -- COMMAND [ARGS…]",
		Short: "On a GPU host: wait for GPUs from the local node agent, then run COMMAND on them",
		Long: `Ask the node agent on this host (GPUSCHED_URL, default http://127.0.0.1:9123) for GPUs,
showing the queue position, the reason and the expected start while waiting, then run
COMMAND in place of gpusched with CUDA_VISIBLE_DEVICES set. The GPUs are released when
COMMAND exits; its exit status is gpusched's. Ctrl-C while waiting withdraws the request.`,
		Example: `  gpusched run -g 2 -- python train.py --lr 3e-4`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOnLocalGPUs(cmd, o, args)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.gpus, "gpus", "g", 1, "GPUs, all at once")
	f.StringVar(&o.gpuType, "gpu-type", "", "GPU model, e.g. H100 (matches part of the name), or a MIG profile, e.g. 1g.10gb")
	f.StringVar(&o.mem, "mem", "", "minimum memory per GPU, e.g. 40G")
	f.StringVarP(&o.time, "time", "t", "", "estimated run time, e.g. 2h (helps backfill and ETAs)")
	f.StringVar(&o.name, "name", "", "a name for the job")
	f.StringVarP(&o.prio, "priority", "p", "", "low, normal, high or critical (admins)")
	return cmd
}

func runOnLocalGPUs(cmd *cobra.Command, o runOptions, args []string) error {
	path, err := exec.LookPath(args[0])
	if err != nil {
		return fmt.Errorf("cannot run %s: %w", args[0], err)
	}
	pid, n := os.Getpid(), o.gpus
	body := api.AcquireRequest{PID: &pid, NumGPUs: &n, GPUType: o.gpuType, Time: o.time, Name: o.name, Priority: o.prio}
	if o.mem != "" {
		gb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(o.mem), "B"), "G"), 64)
		if err != nil || gb <= 0 {
			return fmt.Errorf("--mem %q: want GB per GPU, e.g. 40G", o.mem)
		}
		body.MemGB = &gb
	}
	url := strings.TrimRight(cmp.Or(os.Getenv("GPUSCHED_URL"), "http://127.0.0.1:9123"), "/")
	ctx := cmd.Context()
	type answer struct { // a grant, or a refusal's sentence
		api.AcquireGrant
		api.Error
	}
	got := make(chan answer, 1)
	failed := make(chan error, 1)
	go func() {
		var a answer
		status, err := postJSON(ctx, url+"/acquire", body, &a)
		switch {
		case err != nil:
			failed <- err
		case status != 200:
			failed <- fmt.Errorf("the node agent refused: %s", cmp.Or(a.Message, lighthttp.StatusText(status), fmt.Sprintf("HTTP %d", status)))
		default:
			got <- a
		}
	}()
	st := newWaitStatus(cmd.ErrOrStderr())
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case a := <-got:
			st.clear()
			fmt.Fprintf(cmd.ErrOrStderr(), "gpusched: GPUs %s granted (job %s)\n", cmp.Or(a.GPUs, "none"), a.JobID)
			env := append(os.Environ(), "CUDA_VISIBLE_DEVICES="+a.GPUs, "GPUSCHED_JOB_ID="+a.JobID)
			// Same pid: the agent ends the lease when the command exits.
			return syscall.Exec(path, args, env)
		case err := <-failed:
			st.clear()
			if ctx.Err() != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "gpusched: request withdrawn")
				return ExitCode(130)
			}
			if strings.Contains(err.Error(), "connection refused") {
				return fmt.Errorf("no node agent answers at %s (GPUSCHED_URL): start gpusched node on this host: %w", url, err)
			}
			return err
		case <-tick.C:
			st.show(localWaitLine(ctx, url, os.Getpid()))
		}
	}
}

// localWaitLine describes this process's waiting request from the agent's
// /jobs: place, reason and expected start.
func localWaitLine(ctx context.Context, url string, pid int) string {
	var jobs []api.LocalLease
	if _, err := getJSON(ctx, url+"/jobs", &jobs); err != nil {
		return ""
	}
	for _, j := range jobs {
		if j.PID != pid || j.Status != api.LocalQueued {
			continue
		}
		line := fmt.Sprintf("waiting for %d GPU%s", j.NumGPUs, plural(j.NumGPUs))
		if j.Position != nil {
			line += fmt.Sprintf(", #%d in the queue", *j.Position)
		}
		if j.Reason != "" {
			line += ": " + localtime.InstantsNear(j.Reason, time.Now(), time.Local)
		}
		if j.ETA != nil {
			line += fmt.Sprintf(" — expected start %s (in %s)", j.ETA.Local().Format("15:04 MST"), time.Until(*j.ETA).Round(time.Minute))
		}
		return line
	}
	return ""
}

// waitStatus shows one changing line on stderr: rewritten in place on a
// terminal, printed when it changes otherwise.
type waitStatus struct {
	w    io.Writer
	tty  bool
	last string
}

func newWaitStatus(w io.Writer) *waitStatus {
	f, ok := w.(*os.File)
	return &waitStatus{w: w, tty: ok && term.IsTerminal(int(f.Fd()))}
}

func (s *waitStatus) show(line string) {
	if line == "" || line == s.last {
		return
	}
	s.last = line
	if s.tty {
		fmt.Fprintf(s.w, "\r\033[Kgpusched: %s", line)
		return
	}
	fmt.Fprintf(s.w, "gpusched: %s\n", line)
}

func (s *waitStatus) clear() {
	if s.tty && s.last != "" {
		fmt.Fprint(s.w, "\r\033[K")
	}
}

// agentHTTP talks to the local node agent: no timeout, as /acquire waits
// for GPUs as long as the caller does.
var agentHTTP = &lighthttp.Client{}

func postJSON(ctx context.Context, url string, body, out any) (int, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	return doJSON(ctx, &lighthttp.Request{Method: "POST", URL: url, Header: map[string]string{"Content-Type": "application/json"}, Body: b}, out)
}

func getJSON(ctx context.Context, url string, out any) (int, error) {
	return doJSON(ctx, &lighthttp.Request{Method: "GET", URL: url}, out)
}

func doJSON(ctx context.Context, req *lighthttp.Request, out any) (int, error) {
	resp, err := agentHTTP.Do(ctx, req)
	if err != nil {
		return 0, err
	}
	if len(resp.Body) > 0 {
		if err := json.Unmarshal(resp.Body, out); err != nil {
			return resp.StatusCode, fmt.Errorf("the node agent's answer: %w", err)
		}
	}
	return resp.StatusCode, nil
}
