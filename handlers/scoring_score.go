package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// ScoreRequest is the body of POST /v1/score (and /api/v1/scoring/score).
type ScoreRequest struct {
	JobType string `json:"job_type"`
	// Features are accepted for compatibility; the model keys on job_type.
	Features          map[string]any `json:"features"`
	CandidateGPUTypes []string       `json:"candidate_gpu_types"`
	ColocatedJobTypes []string       `json:"colocated_job_types"`
}

// ScoreTerms are the chosen GPU type's share of the cost.
type ScoreTerms struct {
	ChosenGPU    string  `json:"chosen_gpu"`
	Mu           float64 `json:"mu"`
	Sigma        float64 `json:"sigma"`
	IG           float64 `json:"ig"`
	Interference float64 `json:"interference"`
	// Penalty repeats Interference under the reference service's name.
	Penalty      float64 `json:"penalty"`
	Cost         float64 `json:"cost"`
	Explored     bool    `json:"explored"`
	Capped       bool    `json:"exploration_capped"`
	Observations int64   `json:"observations"`
}

// ScoreCandidate is one candidate GPU type's terms.
type ScoreCandidate struct {
	GPUType      string  `json:"gpu_type"`
	Mu           float64 `json:"mu"`
	Sigma        float64 `json:"sigma"`
	IG           float64 `json:"ig"`
	Interference float64 `json:"interference"`
	Cost         float64 `json:"cost"`
	Observations int64   `json:"observations"`
}

// ScoreResponse is the answer of POST /v1/score.
type ScoreResponse struct {
	PriorityScore     float64          `json:"priority_score"`
	GPUSelector       GPUSelector      `json:"gpu_selector"`
	AvoidCoLocateWith []string         `json:"avoid_co_locate_with"`
	Terms             ScoreTerms       `json:"terms"`
	Candidates        []ScoreCandidate `json:"candidates"`
}

// GPUSelector tells a Kubernetes-style client where to run the job, as the
// reference service did, and our clients which GPU model.
type GPUSelector struct {
	NodeSelector map[string]string `json:"node_selector"`
	Tolerations  []Toleration      `json:"tolerations"`
	GPUModel     string            `json:"gpu_model"`
}

// Toleration is a Kubernetes toleration.
type Toleration struct {
	Key      string `json:"key"`
	Operator string `json:"operator"`
	Effect   string `json:"effect"`
}

// ScoringScore handles POST /v1/score: which candidate GPU type a job of
// job_type should run on, trading expected runtime against what running it
// there would teach (within the exploration cap).
func (h *Handlers) ScoringScore(c echo.Context) error {
	if h.Scoring == nil {
		return errScoringOff
	}
	var b ScoreRequest
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	r := scoring.Request{JobType: b.JobType, Candidates: b.CandidateGPUTypes, Colocated: b.ColocatedJobTypes}
	if err := r.Validate(); err != nil {
		return Errorf(http.StatusBadRequest, api.CodeInvalidField, "%s", err.Error())
	}
	st, err := models.LoadScoringState(c.Request().Context(), h.DB.Bun, b.JobType, scoring.Distinct(b.ColocatedJobTypes))
	if err != nil {
		return err
	}
	d, err := h.Scoring.decide(st, r)
	if err != nil {
		return err
	}
	ch := d.Chosen
	out := ScoreResponse{
		PriorityScore: d.PriorityScore,
		GPUSelector: GPUSelector{
			NodeSelector: map[string]string{"gpu.nvidia.com/class": ch.GPUType},
			Tolerations:  []Toleration{{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}},
			GPUModel:     ch.GPUType,
		},
		AvoidCoLocateWith: append([]string{}, d.Avoid...),
		Terms: ScoreTerms{ChosenGPU: ch.GPUType, Mu: ch.Mu, Sigma: ch.Sigma, IG: ch.IG, Interference: ch.Interference,
			Penalty: ch.Interference, Cost: ch.Cost, Explored: d.Explored, Capped: d.Capped, Observations: ch.N},
	}
	for _, t := range d.Candidates {
		out.Candidates = append(out.Candidates, ScoreCandidate{GPUType: t.GPUType, Mu: t.Mu, Sigma: t.Sigma, IG: t.IG,
			Interference: t.Interference, Cost: t.Cost, Observations: t.N})
	}
	return c.JSON(http.StatusOK, out)
}
