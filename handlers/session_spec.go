package handlers

import (
	"slices"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// jupyterCommand starts Debian's Jupyter Notebook on the loopback port the
// node agent gives it (PORT), at the proxy's path, with its own token and
// password off: nothing but the agent reaches it, and the control plane
// lets only the owner through to the agent. Host checks are off since
// requests carry the dashboard's host; Jupyter's own XSRF check stays. A
// user without a writable home keeps Jupyter's data in its runtime folder,
// a new private one (mktemp): a name known in advance could be taken first
// by another user of the node, or be left over from an earlier server.
// Jupyter refuses to run as root unless told to; where jobs run as root (a
// dev server in a container, a node without a user mapping) it is told.
const jupyterCommand = `export JUPYTER_RUNTIME_DIR="$(mktemp -d "${TMPDIR:-/tmp}/gpusched-jupyter-$GPUSCHED_JOB_ID.XXXXXXXX")" || exit 1
[ -w "$HOME" ] || export JUPYTER_DATA_DIR="$JUPYTER_RUNTIME_DIR/data" JUPYTER_CONFIG_DIR="$JUPYTER_RUNTIME_DIR/config" \
  IPYTHONDIR="$JUPYTER_RUNTIME_DIR/ipython"
root=; [ "$(id -u)" != 0 ] || root=--allow-root
exec jupyter-notebook $root --no-browser --ip=127.0.0.1 --port="$PORT" --port-retries=0 \
  --NotebookApp.token='' --NotebookApp.password='' --NotebookApp.allow_remote_access=True \
  --NotebookApp.base_url="$GPUSCHED_SESSION_PATH"`

// tensorBoardCommand starts TensorBoard at the proxy's path; the session's
// command, if any, adds its flags (default: the working directory's logs).
const tensorBoardCommand = `exec tensorboard --host 127.0.0.1 --port "$PORT" --path_prefix "${GPUSCHED_SESSION_PATH%/}" `

// sessionSubmission validates a session request and turns it into the
// submission of its job: a node job of type "session-KIND" running the
// kind's server.
func sessionSubmission(r *api.SessionRequest, cfg scheduler.Config) (*api.SubmitRequest, error) {
	if !slices.Contains(models.SessionKinds, r.Kind) {
		return nil, invalid("kind", "must be jupyter, tensorboard or web, not %q", r.Kind)
	}
	cmd := strings.TrimSpace(r.Command)
	s := &api.SubmitRequest{GPUCount: r.GPUCount, GPUShare: r.GPUShare, GPUMemory: r.GPUMemory, GPUModel: r.GPUType, Workdir: r.Workdir,
		Name: strings.TrimSpace(r.Name), TimeLimit: r.TimeLimit, JobType: models.SessionJobTypePrefix + r.Kind, Executor: models.ExecutorNode}
	if !applySessionShare(cfg, s) && s.GPUCount == nil && s.GPUShare == nil && s.GPUMemory == "" {
		one := 1
		s.GPUCount = &one
	}
	switch r.Kind {
	case models.SessionJupyter:
		if cmd != "" {
			return nil, invalid("command", "a jupyter session runs Jupyter Notebook itself; leave command empty (use kind \"web\" for another server)")
		}
		s.Command = jupyterCommand
	case models.SessionTensorBoard:
		if cmd == "" {
			cmd = "--logdir ."
		}
		if strings.ContainsAny(cmd, ";&|`$<>\n") {
			return nil, invalid("command", "for tensorboard, only its flags (like --logdir runs); no shell syntax")
		}
		s.Command = tensorBoardCommand + cmd
	default:
		if cmd == "" {
			return nil, invalid("command", "required for a web session: a server that listens on 127.0.0.1:$PORT")
		}
		s.Command = cmd
	}
	if s.Name == "" {
		s.Name = r.Kind + " session"
	}
	return s, nil
}
