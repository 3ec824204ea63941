package scheduler

import (
	"errors"
	"fmt"
	"math"
)

// sinkhornOptions tune the entropic optimal-transport solver.
type sinkhornOptions struct {
	// Epsilon is the entropic regularisation, relative to the spread of
	// the finite costs (default 0.1): smaller is closer to the exact
	// assignment and slower to converge.
	Epsilon float64
	// Tolerance is the L1 error of the row marginals, relative to the total
	// mass, at which the solver stops (default 1e-4).
	Tolerance float64
	// MaxIter caps the iterations (default 1000).
	MaxIter int
}

func (o sinkhornOptions) withDefaults() sinkhornOptions {
	if o.Epsilon <= 0 || !finiteNum(o.Epsilon) {
		o.Epsilon = 0.1
	}
	if o.Tolerance <= 0 || !finiteNum(o.Tolerance) {
		o.Tolerance = 1e-4
	}
	if o.MaxIter <= 0 {
		o.MaxIter = 1000
	}
	return o
}

// transport is a solved plan: Plan[i][j] is the mass of row i sent to
// column j; its row sums match the row masses within Error·total, its
// column sums match the column masses.
type transport struct {
	Plan       [][]float64
	Iterations int
	Converged  bool
	// Error is the L1 row-marginal error relative to the total mass.
	Error float64
}

// sinkhorn solves min ⟨P, C⟩ − ε·H(P) subject to P·1 = rows, Pᵀ·1 = cols,
// in the log domain (potentials f, g and log-sum-exp), so extreme costs
// neither overflow nor underflow. A cost of +Inf forbids a cell. rows and
// cols must be positive and have the same total (within 1e-9 relative).
func sinkhorn(cost [][]float64, rows, cols []float64, o sinkhornOptions) (transport, error) {
	o = o.withDefaults()
	n, m := len(rows), len(cols)
	if n == 0 || m == 0 || len(cost) != n {
		return transport{}, fmt.Errorf("scheduler: sinkhorn needs a %d×%d cost matrix with rows and columns", n, m)
	}
	var ra, ca float64
	for _, r := range rows {
		if !finiteNum(r) || r <= 0 {
			return transport{}, fmt.Errorf("scheduler: sinkhorn row mass %v must be > 0", r)
		}
		ra += r
	}
	for _, c := range cols {
		if !finiteNum(c) || c <= 0 {
			return transport{}, fmt.Errorf("scheduler: sinkhorn column mass %v must be > 0", c)
		}
		ca += c
	}
	if math.Abs(ra-ca) > 1e-9*math.Max(ra, ca) {
		return transport{}, fmt.Errorf("scheduler: sinkhorn rows total %v but columns %v", ra, ca)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, row := range cost {
		if len(row) != m {
			return transport{}, fmt.Errorf("scheduler: sinkhorn cost row %d has %d columns, want %d", i, len(row), m)
		}
		open := false
		for _, v := range row {
			switch {
			case math.IsNaN(v) || math.IsInf(v, -1):
				return transport{}, fmt.Errorf("scheduler: sinkhorn cost %v in row %d", v, i)
			case !math.IsInf(v, 1):
				lo, hi, open = math.Min(lo, v), math.Max(hi, v), true
			}
		}
		if !open {
			return transport{}, fmt.Errorf("scheduler: sinkhorn row %d has no allowed column", i)
		}
	}
	// Costs are rescaled to [0, 1] so that ε is relative: 1e300 and 1e-300
	// in one matrix are as easy as 1 and 2.
	scale := hi - lo
	if scale <= 0 || !finiteNum(scale) {
		scale = math.Max(math.Abs(hi), 1)
		if !finiteNum(scale) {
			scale = math.MaxFloat64
		}
	}
	unit := make([][]float64, n) // costs rescaled to [0, 1]; +Inf where forbidden
	for i, row := range cost {
		unit[i] = make([]float64, m)
		for j, v := range row {
			unit[i][j] = math.Inf(1)
			if !math.IsInf(v, 1) {
				unit[i][j] = (v - lo) / scale
			}
		}
	}
	logA, logB := logs(rows), logs(cols)
	f, g := make([]float64, n), make([]float64, m)
	k := make([][]float64, n)
	for i := range k {
		k[i] = make([]float64, m)
	}
	t := transport{}
	// ε-scaling: solve coarsely with a large ε first and carry the
	// potentials down, halving ε to the target; only the last stage must
	// meet the tolerance.
	for eps, prev := 1.0, 1.0; ; eps = math.Max(eps/2, o.Epsilon) {
		for i := range n {
			f[i] *= prev / eps
			for j := range m {
				k[i][j] = -unit[i][j] / eps
			}
		}
		for j := range m {
			g[j] *= prev / eps
		}
		prev = eps
		last := eps == o.Epsilon
		tol := o.Tolerance
		if !last {
			tol = math.Max(o.Tolerance, 1e-3)
		}
		t.iterate(k, f, g, logA, logB, rows, ra, tol, o.MaxIter)
		if last || t.Iterations >= o.MaxIter {
			t.Converged = last && t.Error <= o.Tolerance
			break
		}
	}
	if math.IsNaN(t.Error) {
		return transport{}, errors.New("scheduler: sinkhorn diverged")
	}
	t.Plan = make([][]float64, n)
	for i := range n {
		t.Plan[i] = make([]float64, m)
		for j := range m {
			t.Plan[i][j] = math.Exp(f[i] + g[j] + k[i][j])
		}
	}
	return t, nil
}

// iterate runs Sinkhorn updates of the potentials f, g (in units of ε)
// until the row-marginal error is within tol or the iterations reach most.
func (t *transport) iterate(k [][]float64, f, g, logA, logB, rows []float64, total, tol float64, most int) {
	n, m := len(f), len(g)
	buf := make([]float64, max(n, m))
	for t.Iterations < most {
		t.Iterations++
		for i := range n {
			for j := range m {
				buf[j] = g[j] + k[i][j]
			}
			f[i] = logA[i] - logSumExp(buf[:m])
		}
		for j := range m {
			for i := range n {
				buf[i] = f[i] + k[i][j]
			}
			g[j] = logB[j] - logSumExp(buf[:n])
		}
		t.Error = 0
		for i := range n {
			for j := range m {
				buf[j] = f[i] + g[j] + k[i][j]
			}
			t.Error += math.Abs(math.Exp(logSumExp(buf[:m])) - rows[i])
		}
		t.Error /= total
		if t.Error <= tol {
			return
		}
	}
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// logSumExp is log Σ exp(x), shifted by the maximum so it never overflows;
// −Inf when every x is −Inf.
func logSumExp(xs []float64) float64 {
	top := math.Inf(-1)
	for _, x := range xs {
		top = math.Max(top, x)
	}
	if math.IsInf(top, -1) {
		return top
	}
	var s float64
	for _, x := range xs {
		s += math.Exp(x - top)
	}
	return top + math.Log(s)
}

func finiteNum(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
