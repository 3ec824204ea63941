package web_test

import (
	"context"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The document's curl bodies, byte for byte.
const (
	specScoreBody = `{
    "job_type": "train-bert",
    "features": {"gpu_mem_gb": 40, "batch_size": 16},
    "candidate_gpu_types": ["A100-80GB", "L4-24GB"],
    "colocated_job_types": []
  }`
	specObserveBody = `{
    "job_type": "train-bert",
    "gpu_type": "A100-80GB",
    "measured_runtime_s": 73.4,
    "colocated_job_types": []
  }`
)

// waitApplied waits until no observation is pending.
func waitApplied(t testing.TB, s *testserver.Server) {
	t.Helper()
	waitFor(t, "every observation applied", func() bool {
		n, err := s.DB.Bun.NewSelect().Model((*models.ScoringObservation)(nil)).Where("applied_at IS NULL").Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n == 0
	})
}

func score(t *testing.T, s *testserver.Server, path, token, body string) handlers.ScoreResponse {
	t.Helper()
	status, b := s.Do(t, "POST", path, token, body)
	if status != 200 {
		t.Fatalf("POST %s: %d %s", path, status, b)
	}
	var out handlers.ScoreResponse
	mustJSON(t, b, &out)
	return out
}

// The document's curl examples round-trip on the bare aliases and under
// /api/v1/scoring: score answers every field the document names, observe
// is learned, and the next score reflects it.
func TestScoringSpecExamplesRoundTrip(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.UserToken(t, models.RoleMember)

	status, raw := s.Do(t, "POST", "/v1/score", tok, specScoreBody)
	if status != 200 {
		t.Fatalf("score: %d %s", status, raw)
	}
	var fields map[string]json.RawMessage
	mustJSON(t, raw, &fields)
	for _, f := range []string{"priority_score", "gpu_selector", "avoid_co_locate_with", "terms"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("score answer lacks %q: %s", f, raw)
		}
	}
	var terms map[string]any
	mustJSON(t, fields["terms"], &terms)
	for _, f := range []string{"mu", "sigma", "ig", "interference", "cost", "explored", "chosen_gpu"} {
		if _, ok := terms[f]; !ok {
			t.Errorf("terms lack %q: %s", f, fields["terms"])
		}
	}
	first := score(t, s, "/api/v1/scoring/score", tok, specScoreBody)
	if first.Terms.Observations != 0 || first.PriorityScore < 0 || first.PriorityScore > 100 ||
		first.GPUSelector.NodeSelector["gpu.nvidia.com/class"] != first.Terms.ChosenGPU || first.AvoidCoLocateWith == nil {
		t.Fatalf("cold score: %+v", first)
	}

	for _, path := range []string{"/v1/observe", "/api/v1/scoring/observe"} {
		status, b := s.Do(t, "POST", path, tok, specObserveBody)
		var ans handlers.ObserveResponse
		if status != 200 || json.Unmarshal(b, &ans) != nil || ans.Status != "ok" || ans.ObservationID == 0 {
			t.Fatalf("POST %s: %d %s", path, status, b)
		}
	}
	waitApplied(t, s)

	after := score(t, s, "/v1/score", tok, specScoreBody)
	var a100 handlers.ScoreCandidate
	for _, c := range after.Candidates {
		if c.GPUType == "A100-80GB" {
			a100 = c
		}
	}
	if a100.Observations != 2 || a100.Mu < 73 || a100.Mu > 74 || a100.Sigma >= first.Candidates[0].Sigma {
		t.Fatalf("after two 73.4 s runs on A100: %+v (before: %+v)", a100, first.Candidates[0])
	}
	// The unknown L4 is worth exploring; the cap (25%) allows some of it,
	// and every answer names what it picked and why.
	if after.Terms.ChosenGPU == "L4-24GB" && !after.Terms.Explored {
		t.Fatalf("picked the unknown L4 without exploring: %+v", after.Terms)
	}

	// Healthz and metrics, bare and under /api/v1/scoring.
	for _, p := range []struct{ path, tok string }{{"/healthz", ""}, {"/api/v1/scoring/healthz", tok}} {
		if status, b := s.Do(t, "GET", p.path, p.tok, ""); status != 200 || !contains(b, `"status":"ok"`) {
			t.Errorf("GET %s: %d %s", p.path, status, b)
		}
	}
	for _, p := range []struct{ path, tok string }{{"/metrics", ""}, {"/api/v1/scoring/metrics", tok}} {
		status, b := s.Do(t, "GET", p.path, p.tok, "")
		for _, m := range []string{"scheduler_decisions_total 3", "scheduler_exploration_ratio", "scheduler_avg_uncertainty"} {
			if status != 200 || !contains(b, m) {
				t.Errorf("GET %s: %d, lacks %q", p.path, status, m)
			}
		}
	}
}

// Bad input is a 400 (or 413) with a sentence, and nothing reaches the model.
func TestScoringRefusesBadInput(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.UserToken(t, models.RoleMember)
	huge := `{"job_type":"` + strings.Repeat("x", 1<<20) + `","candidate_gpu_types":["A100"]}`
	many := `{"job_type":"j","candidate_gpu_types":[` + strings.Repeat(`"g",`, 64) + `"g"]}`
	tests := map[string]struct {
		path, body, code string
		status           int
	}{
		"score: no job_type":        {"/v1/score", `{"candidate_gpu_types":["A100"]}`, "invalid_field", 400},
		"score: blank job_type":     {"/v1/score", `{"job_type":" ","candidate_gpu_types":["A100"]}`, "invalid_field", 400},
		"score: no candidates":      {"/v1/score", `{"job_type":"j","candidate_gpu_types":[]}`, "invalid_field", 400},
		"score: candidates missing": {"/v1/score", `{"job_type":"j"}`, "invalid_field", 400},
		"score: too many":           {"/v1/score", many, "invalid_field", 400},
		"score: wrong type":         {"/v1/score", `{"job_type":3,"candidate_gpu_types":["A100"]}`, "invalid_field", 400},
		"score: unknown field":      {"/v1/score", `{"job_type":"j","candidate_gpu_types":["A"],"x":1}`, "unknown_field", 400},
		"score: huge":               {"/v1/score", huge, "body_too_large", 413},
		"observe: negative":         {"/v1/observe", `{"job_type":"j","gpu_type":"A100","measured_runtime_s":-1}`, "invalid_field", 400},
		"observe: zero":             {"/v1/observe", `{"job_type":"j","gpu_type":"A100","measured_runtime_s":0}`, "invalid_field", 400},
		"observe: overflow":         {"/v1/observe", `{"job_type":"j","gpu_type":"A100","measured_runtime_s":1e999}`, "invalid_field", 400},
		"observe: NaN string":       {"/v1/observe", `{"job_type":"j","gpu_type":"A100","measured_runtime_s":"NaN"}`, "invalid_field", 400},
		"observe: no runtime":       {"/v1/observe", `{"job_type":"j","gpu_type":"A100"}`, "invalid_field", 400},
		"observe: no gpu_type":      {"/v1/observe", `{"job_type":"j","measured_runtime_s":5}`, "invalid_field", 400},
		"observe: no job_type":      {"/api/v1/scoring/observe", `{"gpu_type":"A100","measured_runtime_s":5}`, "invalid_field", 400},
		"observe: huge":             {"/api/v1/scoring/observe", huge, "body_too_large", 413},
		"observe: not JSON":         {"/v1/observe", `job_type=j`, "invalid_json", 400},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			status, body := s.Do(t, "POST", tc.path, tok, tc.body)
			msg, code := testserver.APIError(t, body)
			if status != tc.status || code != tc.code || len(msg) < 10 {
				t.Errorf("%d %s %q, want %d %s", status, code, msg, tc.status, tc.code)
			}
		})
	}
	if n, err := s.DB.Bun.NewSelect().Model((*models.ScoringObservation)(nil)).Count(context.Background()); err != nil || n != 0 {
		t.Fatalf("%d observations stored from bad input (%v)", n, err)
	}
}

// The bare aliases need a token unless the caller is on a trusted network;
// the /api/v1/scoring routes always need one.
func TestScoringAliasAuth(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.UserToken(t, models.RoleMember)
	nodeTok, _ := s.NodeToken(t, "gpu-x")
	body := `{"job_type":"j","candidate_gpu_types":["A100"]}`
	check := func(name, path, token string, want int) {
		t.Helper()
		if status, b := s.Do(t, "POST", path, token, body); status != want {
			t.Errorf("%s: POST %s = %d %s, want %d", name, path, status, b, want)
		}
	}
	check("no token, untrusted", "/v1/score", "", 401)
	check("bad token", "/v1/score", "gsu_nope", 401)
	check("node token", "/v1/score", nodeTok, 403)
	check("token", "/v1/score", tok, 200)
	s.Scoring.Trusted = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	check("no token, trusted", "/v1/score", "", 200)
	check("bad token, trusted", "/v1/score", "gsu_nope", 401)
	check("api route, trusted", "/api/v1/scoring/score", "", 401)
	s.Scoring.Trusted = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	check("no token, other network trusted", "/v1/score", "", 401)
}

// Scores are deterministic for a given state: the same request gives the
// same terms whatever the candidates' order, as long as it exploits.
func TestScoringDeterministic(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.UserToken(t, models.RoleMember)
	for _, o := range []string{
		`{"job_type":"j","gpu_type":"A100","measured_runtime_s":100}`, `{"job_type":"j","gpu_type":"A100","measured_runtime_s":104}`,
		`{"job_type":"j","gpu_type":"H100","measured_runtime_s":60}`, `{"job_type":"j","gpu_type":"H100","measured_runtime_s":61}`,
	} {
		if status, b := s.Do(t, "POST", "/v1/observe", tok, o); status != 200 {
			t.Fatalf("observe: %d %s", status, b)
		}
	}
	waitApplied(t, s)
	a := score(t, s, "/v1/score", tok, `{"job_type":"j","candidate_gpu_types":["A100","H100"]}`)
	b := score(t, s, "/v1/score", tok, `{"job_type":"j","candidate_gpu_types":["H100","A100"]}`)
	if diff := cmp.Diff(a.Terms, b.Terms); diff != "" || a.Terms.ChosenGPU != "H100" || a.PriorityScore != b.PriorityScore {
		t.Fatalf("chose %s; (-first +second):\n%s", a.Terms.ChosenGPU, diff)
	}
}
