package scoring

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func learn(c Config, st State, o Observation) {
	key := Key{o.JobType, o.GPUType}
	l := c.Learn(st.Runtime[key], o)
	st.Runtime[key] = l.Runtime
	if l.HasSlowdown {
		for _, b := range Distinct(o.Colocated) {
			p := Pair{o.JobType, b}
			st.Interference[p] = st.Interference[p].Add(l.Slowdown)
		}
	}
}

func newState() State {
	return State{Runtime: map[Key]Moments{}, Interference: map[Pair]Moments{}}
}

// Agreeing observations shrink the uncertainty at every step; disagreeing
// ones leave more of it than agreeing ones do.
func TestUncertaintyShrinksWithAgreeingObservations(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	tests := map[string][]float64{
		"identical":   {73.4, 73.4, 73.4, 73.4, 73.4, 73.4, 73.4, 73.4},
		"within 2%":   {73.4, 74.1, 72.9, 73.8, 73.0, 74.4, 72.6, 73.5},
		"long job":    {36000, 36500, 35800, 36100, 36300, 35900},
		"second-long": {1.1, 1.0, 1.05, 0.98, 1.02},
	}
	for name, runs := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := newState()
			prev := c.Estimate(st, "j", "g")
			for i, r := range runs {
				learn(c, st, Observation{JobType: "j", GPUType: "g", RuntimeS: r})
				e := c.Estimate(st, "j", "g")
				if !(e.LogVar < prev.LogVar) || !(c.InformationGain(e) < c.InformationGain(prev)) {
					t.Fatalf("after run %d: var %v → %v, IG %v → %v: did not shrink", i+1, prev.LogVar, e.LogVar, c.InformationGain(prev), c.InformationGain(e))
				}
				prev = e
			}
			var logSum float64
			for _, r := range runs {
				logSum += math.Log(r)
			}
			if geo := math.Exp(logSum / float64(len(runs))); math.Abs(prev.Mu-geo) > 1e-9*geo {
				t.Errorf("mu = %v after %v, want their geometric mean %v", prev.Mu, runs, geo)
			}
		})
	}
	agree, disagree := newState(), newState()
	for i := range 6 {
		learn(c, agree, Observation{JobType: "j", GPUType: "g", RuntimeS: 100})
		learn(c, disagree, Observation{JobType: "j", GPUType: "g", RuntimeS: 100 * math.Pow(3, float64(i%2*2-1))})
	}
	if a, d := c.Estimate(agree, "j", "g").LogVar, c.Estimate(disagree, "j", "g").LogVar; a >= d {
		t.Errorf("agreeing runs leave var %v, disagreeing %v: want less", a, d)
	}
}

// The first observation replaces the prior mean, and a job type seen on
// one GPU type starts from that mean on another, still uncertain.
func TestPrior(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	st := newState()
	if e := c.Estimate(st, "new", "A100"); math.Abs(e.Mu-c.PriorMean.Seconds()) > 1e-6 || e.LogVar != 9 {
		t.Fatalf("unobserved: mu %v var %v, want the prior mean %v and a wide variance", e.Mu, e.LogVar, c.PriorMean.Seconds())
	}
	learn(c, st, Observation{JobType: "new", GPUType: "A100", RuntimeS: 60})
	e := c.Estimate(st, "new", "A100")
	if math.Abs(e.Mu-60) > 1e-9 {
		t.Fatalf("after one 60 s run: mu %v", e.Mu)
	}
	other := c.Estimate(st, "new", "L4")
	if math.Abs(other.Mu-60) > 1e-9 || other.LogVar != 1 || other.LogVar <= e.LogVar {
		t.Fatalf("other GPU type: mu %v var %v, want 60 and more uncertain than %v", other.Mu, other.LogVar, e.LogVar)
	}
}

// Observations are order-independent in the runtime estimate (conjugate).
func TestPosteriorOrderIndependent(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	runs := []float64{10, 200, 35, 7, 90}
	a, b := Moments{}, Moments{}
	for i := range runs {
		a = a.Add(math.Log(runs[i]))
		b = b.Add(math.Log(runs[len(runs)-1-i]))
	}
	ea, eb := c.Posterior(a, Prior{LogMean: 5, LogVar: 1}), c.Posterior(b, Prior{LogMean: 5, LogVar: 1})
	if diff := cmp.Diff(ea, eb, cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(x)) })); diff != "" {
		t.Fatal(diff)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	long := string(make([]byte, MaxNameLen+1))
	tests := map[string]struct {
		obs Observation
		ok  bool
	}{
		"fine":             {Observation{JobType: "train-bert", GPUType: "A100-80GB", RuntimeS: 73.4}, true},
		"missing job_type": {Observation{GPUType: "A100-80GB", RuntimeS: 1}, false},
		"blank job_type":   {Observation{JobType: "  ", GPUType: "A100-80GB", RuntimeS: 1}, false},
		"missing gpu_type": {Observation{JobType: "j", RuntimeS: 1}, false},
		"zero runtime":     {Observation{JobType: "j", GPUType: "g"}, false},
		"negative":         {Observation{JobType: "j", GPUType: "g", RuntimeS: -3}, false},
		"NaN":              {Observation{JobType: "j", GPUType: "g", RuntimeS: math.NaN()}, false},
		"+Inf":             {Observation{JobType: "j", GPUType: "g", RuntimeS: math.Inf(1)}, false},
		"absurdly long":    {Observation{JobType: "j", GPUType: "g", RuntimeS: 1e12}, false},
		"long name":        {Observation{JobType: long, GPUType: "g", RuntimeS: 1}, false},
		"blank colocated":  {Observation{JobType: "j", GPUType: "g", RuntimeS: 1, Colocated: []string{""}}, false},
		"many colocated":   {Observation{JobType: "j", GPUType: "g", RuntimeS: 1, Colocated: make([]string, MaxColocated+1)}, false},
	}
	for name, tc := range tests {
		if err := tc.obs.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %t", name, err, tc.ok)
		}
	}
	reqs := map[string]Request{
		"no job_type":       {Candidates: []string{"g"}},
		"no candidates":     {JobType: "j"},
		"blank candidate":   {JobType: "j", Candidates: []string{""}},
		"too many":          {JobType: "j", Candidates: make([]string, MaxCandidates+1)},
		"blank co-location": {JobType: "j", Candidates: []string{"g"}, Colocated: []string{" "}},
	}
	for name, r := range reqs {
		if _, err := DefaultConfig().Decide(newState(), r, NewExplorer(1, 10)); err == nil {
			t.Errorf("%s: Decide accepted %+v", name, r)
		}
	}
	bad := DefaultConfig()
	bad.ExplorationCap = 1.5
	if bad.Validate() == nil || DefaultConfig().Validate() != nil {
		t.Error("Validate does not tell a bad cap from the defaults")
	}
}
