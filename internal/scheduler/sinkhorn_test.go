package scheduler

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

func marginals(p [][]float64) (rows, cols []float64) {
	rows = make([]float64, len(p))
	cols = make([]float64, len(p[0]))
	for i, r := range p {
		for j, v := range r {
			rows[i] += v
			cols[j] += v
		}
	}
	return rows, cols
}

func checkMarginals(t interface{ Fatalf(string, ...any) }, tr transport, rows, cols []float64, tol float64) {
	r, c := marginals(tr.Plan)
	var total, errR, errC float64
	for i := range rows {
		total += rows[i]
		errR += math.Abs(r[i] - rows[i])
	}
	for j := range cols {
		errC += math.Abs(c[j] - cols[j])
	}
	if errR > tol*total || errC > tol*total || !tr.Converged {
		t.Fatalf("marginal errors rows %v cols %v (total %v), converged %t after %d", errR, errC, total, tr.Converged, tr.Iterations)
	}
}

// Random problems: the plan's marginals match within the tolerance.
func TestSinkhornMarginals(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		n, m := rapid.IntRange(1, 30).Draw(t, "n"), rapid.IntRange(1, 8).Draw(t, "m")
		cost := make([][]float64, n)
		rows := make([]float64, n)
		var total float64
		for i := range n {
			cost[i] = rapid.SliceOfN(rapid.Float64Range(0, 1000), m, m).Draw(t, "cost")
			rows[i] = float64(rapid.IntRange(1, 8).Draw(t, "gpus"))
			total += rows[i]
		}
		cols := make([]float64, m)
		for j := range m {
			cols[j] = total / float64(m)
		}
		tr, err := sinkhorn(cost, rows, cols, sinkhornOptions{Tolerance: 1e-4, MaxIter: 20000})
		if err != nil {
			t.Fatal(err)
		}
		checkMarginals(t, tr, rows, cols, 1.01e-4)
	})
}

// Extreme costs neither overflow nor underflow, forbidden cells stay
// empty, and a cheap cell gets the mass.
func TestSinkhornExtremeCosts(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	tests := map[string][][]float64{
		"huge":       {{1e300, 1e-300}, {1e-300, 1e300}},
		"tiny":       {{1e-300, 2e-300}, {2e-300, 1e-300}},
		"mixed":      {{1e308, 0}, {-1e308, 5}},
		"all equal":  {{7, 7}, {7, 7}},
		"forbidden":  {{inf, 1}, {1, inf}},
		"one column": {{3}, {1e200}},
	}
	for name, cost := range tests {
		rows := make([]float64, len(cost))
		for i := range rows {
			rows[i] = 1
		}
		cols := make([]float64, len(cost[0]))
		for j := range cols {
			cols[j] = float64(len(rows)) / float64(len(cols))
		}
		tr, err := sinkhorn(cost, rows, cols, sinkhornOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, r := range tr.Plan {
			for j, v := range r {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (math.IsInf(cost[i][j], 1) && v != 0) {
					t.Fatalf("%s: plan[%d][%d] = %v", name, i, j, v)
				}
			}
		}
		checkMarginals(t, tr, rows, cols, 1.01e-4)
	}
	if tr, _ := sinkhorn(tests["huge"], []float64{1, 1}, []float64{1, 1}, sinkhornOptions{}); tr.Plan[0][1] < 0.99 {
		t.Fatalf("huge: the cheap cell got %v", tr.Plan[0][1])
	}
	bad := map[string]struct {
		cost       [][]float64
		rows, cols []float64
	}{
		"NaN":         {[][]float64{{math.NaN()}}, []float64{1}, []float64{1}},
		"unbalanced":  {[][]float64{{1}}, []float64{1}, []float64{2}},
		"no column":   {[][]float64{{inf, inf}}, []float64{1}, []float64{0.5, 0.5}},
		"zero mass":   {[][]float64{{1}}, []float64{0}, []float64{0}},
		"ragged rows": {[][]float64{{1, 2}, {1}}, []float64{1, 1}, []float64{1, 1}},
	}
	for name, b := range bad {
		if _, err := sinkhorn(b.cost, b.rows, b.cols, sinkhornOptions{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// assign honours capacities, leaves jobs waiting when capacity is short,
// and sends each job to its cheap type when there is room.
func TestAssign(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		n, m := rapid.IntRange(1, 40).Draw(t, "jobs"), rapid.IntRange(1, 6).Draw(t, "types")
		cost := make([][]float64, n)
		demand := make([]int, n)
		for i := range n {
			cost[i] = rapid.SliceOfN(rapid.Float64Range(1, 100), m, m).Draw(t, "cost")
			demand[i] = rapid.IntRange(1, 4).Draw(t, "demand")
		}
		capacity := rapid.SliceOfN(rapid.IntRange(0, 16), m, m).Draw(t, "capacity")
		a, err := assign(cost, demand, capacity, sinkhornOptions{MaxIter: 2000})
		if err != nil {
			t.Fatal(err)
		}
		used := make([]int, m)
		for i, j := range a.Column {
			if j >= 0 {
				used[j] += demand[i]
			}
		}
		for j := range m {
			if used[j] > capacity[j] {
				t.Fatalf("type %d: %d GPUs assigned, capacity %d", j, used[j], capacity[j])
			}
		}
	})
	a, err := assign([][]float64{{1, 10}, {10, 1}, {1, 10}}, []int{1, 1, 1}, []int{2, 2}, sinkhornOptions{})
	if err != nil || a.Column[0] != 0 || a.Column[1] != 1 || a.Column[2] != 0 {
		t.Fatalf("assign = %v, %v; want [0 1 0]", a.Column, err)
	}
	a, err = assign([][]float64{{1}, {2}, {3}}, []int{1, 1, 1}, []int{2}, sinkhornOptions{})
	waiting := 0
	for _, j := range a.Column {
		if j < 0 {
			waiting++
		}
	}
	if err != nil || waiting != 1 {
		t.Fatalf("short capacity: %v, %v; want one job waiting", a.Column, err)
	}
}

// One Sinkhorn solve for 100 waiting jobs × 8 GPU types.
func BenchmarkSinkhorn100x8(b *testing.B) {
	const n, m = 100, 8
	cost := make([][]float64, n)
	rows := make([]float64, n)
	cols := make([]float64, m)
	for i := range n {
		cost[i] = make([]float64, m)
		for j := range m {
			cost[i][j] = 50 + 40*math.Sin(float64(i*7+j*13))
		}
		rows[i] = float64(1 + i%4)
	}
	var total float64
	for _, r := range rows {
		total += r
	}
	for j := range cols {
		cols[j] = total / m
	}
	b.ReportAllocs()
	var iters int
	for b.Loop() {
		tr, err := sinkhorn(cost, rows, cols, sinkhornOptions{})
		if err != nil || !tr.Converged {
			b.Fatal(err, tr.Iterations)
		}
		iters = tr.Iterations
	}
	b.ReportMetric(float64(iters), "iterations")
}
