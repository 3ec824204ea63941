package scoring

import (
	"fmt"
	"math"
	"testing"
)

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
		tr, err := Sinkhorn(cost, rows, cols, SinkhornOptions{})
		if err != nil || !tr.Converged {
			b.Fatal(err, tr.Iterations)
		}
		iters = tr.Iterations
	}
	b.ReportMetric(float64(iters), "iterations")
}

// One decision over 8 candidate GPU types with learned state.
func BenchmarkDecide(b *testing.B) {
	c := DefaultConfig()
	st := State{Runtime: map[Key]Moments{}, Interference: map[Pair]Moments{}}
	var cands []string
	for g := range 8 {
		name := fmt.Sprintf("gpu-%d", g)
		cands = append(cands, name)
		for k := range 5 {
			st.Runtime[Key{"train-bert", name}] = st.Runtime[Key{"train-bert", name}].Add(math.Log(float64(60 + g*10 + k)))
		}
	}
	ex := NewExplorer(c.ExplorationCap, c.Window)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decide(st, Request{JobType: "train-bert", Candidates: cands}, ex); err != nil {
			b.Fatal(err)
		}
	}
}
