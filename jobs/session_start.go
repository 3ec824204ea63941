package jobs

import (
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sessionStart is what a node agent needs to serve job j as an interactive
// session (nil: j is not one): where to ask whether its server answers,
// and whether the proxy path's prefix is removed before forwarding. Jupyter
// and TensorBoard are told their base URL (/s/{id}/) and keep it; a "web"
// server sees paths from "/".
func sessionStart(j *models.Job) *api.SessionStart {
	switch kind := models.SessionKindOf(j.JobType); kind {
	case "":
		return nil
	case models.SessionJupyter:
		return &api.SessionStart{Kind: kind, ProbePath: api.SessionPath(j.ID) + "api/status"}
	case models.SessionTensorBoard:
		return &api.SessionStart{Kind: kind, ProbePath: api.SessionPath(j.ID)}
	default:
		return &api.SessionStart{Kind: kind, ProbePath: "/", StripPrefix: true}
	}
}
