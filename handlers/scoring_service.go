package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Scoring is the scoring service (spec/scoring-service.md) as the handlers
// use it: the model's configuration, this replica's exploration budget,
// the networks trusted to call the bare /v1 aliases without a token, and
// its Prometheus series. The learned state itself lives in PostgreSQL.
type Scoring struct {
	Config scoring.Config
	// Trusted are the networks whose clients may call POST /v1/score and
	// /v1/observe without a token (GPUSCHED_SCORING_TRUSTED_NETWORKS).
	Trusted []netip.Prefix
	// Enqueue queues, in tx, the River job that folds in the observations
	// recorded in tx (jobs.Deps.EnqueueScoringObserve).
	Enqueue func(ctx context.Context, tx *models.Tx) error

	// mu serialises decisions, so this replica's exploratory share stays
	// within the cap; with each replica within it, so is the cluster's.
	mu        sync.Mutex
	explorer  *scoring.Explorer
	decisions prometheus.Counter
	explored  prometheus.Counter
	ratio     prometheus.Gauge
}

// Model is the scoring model's configuration, for whatever reads the
// snapshot (the policy preview); without a scoring service, its defaults.
func (s *Scoring) Model() scoring.Config {
	if s == nil {
		return scoring.DefaultConfig()
	}
	return s.Config
}

// NewScoring checks cfg and registers the scoring series on reg:
// scheduler_decisions_total, scheduler_exploratory_decisions_total,
// scheduler_exploration_ratio and scheduler_avg_uncertainty (read from db
// at each scrape).
func NewScoring(cfg scoring.Config, trusted []netip.Prefix, db *models.DB, reg prometheus.Registerer) (*Scoring, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("handlers: scoring: %w", err)
	}
	s := &Scoring{
		Config: cfg, Trusted: trusted, explorer: scoring.NewExplorer(cfg.ExplorationCap, cfg.Window),
		decisions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "scheduler_decisions_total", Help: "Scoring decisions made by this replica (POST /v1/score).",
		}),
		explored: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "scheduler_exploratory_decisions_total", Help: "Scoring decisions that picked a GPU type to learn about it.",
		}),
		ratio: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "scheduler_exploration_ratio", Help: "Share of this replica's scoring decisions that explored (at most SCHEDULER_EXPLORATION_CAP).",
		}),
	}
	uncertainty := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "scheduler_avg_uncertainty",
		Help: "Average uncertainty of the learned (job type, GPU type) runtimes: the posterior sd of ln(runtime), about the relative error.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		v, _, err := models.ScoringAvgUncertainty(ctx, db.Bun, cfg)
		if err != nil {
			return -1 // the scrape still answers; -1 cannot be a real value
		}
		return v
	})
	for _, c := range []prometheus.Collector{s.decisions, s.explored, s.ratio, uncertainty} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("handlers: scoring metrics: %w", err)
		}
	}
	return s, nil
}

// errScoringOff answers scoring calls on a server built without the service.
var errScoringOff = Errorf(http.StatusServiceUnavailable, api.CodeScoringOff, "the scoring service is not configured on this server")

// decide makes one decision against st, counting it.
func (s *Scoring) decide(st scoring.State, r scoring.Request) (scoring.Decision, error) {
	s.mu.Lock()
	d, err := s.Config.Decide(st, r, s.explorer)
	ratio := s.explorer.Ratio()
	s.mu.Unlock()
	if err != nil {
		return d, err
	}
	s.decisions.Inc()
	if d.Explored {
		s.explored.Inc()
	}
	s.ratio.Set(ratio)
	return d, nil
}

// trusts reports whether addr is inside a trusted network.
func (s *Scoring) trusts(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range s.Trusted {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
