package sim

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// uPlot 1.6.32 (MIT, uplot/LICENSE), vendored from npm so that the report
// is one self-contained file.
var (
	//go:embed uplot/uPlot.iife.min.js
	uplotJS string
	//go:embed uplot/uPlot.min.css
	uplotCSS string
)

// Detail is what the HTML report draws of one replay; Summarize fills it.
type Detail struct {
	Waits, JCTs []float64         // seconds, ascending
	Slowdown    map[int64]float64 // user → mean bounded slowdown
	UtilT       []float64         // days since the first arrival
	Util        []float64         // share of GPUs held by the runs that completed
	JobWaits    []JobWait         // each completed job's wait, in record order
}

// JobWait is one completed job's wait (first start − arrival), seconds.
type JobWait struct {
	Job  int64
	Wait float64
}

// cdfPoints reduces sorted values to at most n (value, share ≤ value) points.
func cdfPoints(xs []float64, n int) [][2]float64 {
	var out [][2]float64
	for k := 1; k <= n && len(xs) > 0; k++ {
		i := min(len(xs)-1, int(math.Ceil(float64(k)/float64(n)*float64(len(xs))))-1)
		out = append(out, [2]float64{xs[i] / 3600, float64(i+1) / float64(len(xs))})
	}
	return out
}

// utilization samples the share of gpus held over the replay by the final
// runs of completed jobs (preempted runs are not drawn).
func utilization(r *Result, gpus int, points int) ([]float64, []float64) {
	var last time.Duration
	for _, rec := range r.Records {
		if rec.Done {
			last = max(last, rec.End)
		}
	}
	if last == 0 || gpus == 0 {
		return nil, nil
	}
	ts, us := make([]float64, points), make([]float64, points)
	for k := range points {
		t := time.Duration(float64(last) * float64(k) / float64(points-1))
		busy := 0.0
		for _, rec := range r.Records {
			if rec.Done && rec.Start <= t && t < rec.End {
				busy += rec.Job.GPUWeight()
			}
		}
		ts[k], us[k] = t.Hours()/24, math.Min(1, busy/float64(gpus))
	}
	return ts, us
}

// WriteHTML writes the report as one self-contained page: the CDF of
// waits and of JCTs per policy, utilization over time, and per-user mean
// bounded slowdown bars, beside the metrics table.
func (r Report) WriteHTML(w io.Writer) error {
	type series struct {
		Name       string
		Wait, JCT  [][2]float64
		UtilT, Use []float64
	}
	type bar struct {
		User  string
		Value float64
		Width float64 // percent of the largest
	}
	type block struct {
		Policy string
		Bars   []bar
	}
	var data []series
	var blocks []block
	for _, m := range r.Metrics {
		if m.Detail == nil {
			continue
		}
		d := m.Detail
		data = append(data, series{m.Policy, cdfPoints(d.Waits, 200), cdfPoints(d.JCTs, 200), d.UtilT, d.Util})
		b := block{Policy: m.Policy}
		most := 0.0
		for _, v := range d.Slowdown {
			most = max(most, v)
		}
		for _, u := range slices.Sorted(maps.Keys(d.Slowdown)) {
			v := d.Slowdown[u]
			b.Bars = append(b.Bars, bar{fmt.Sprintf("user%02d", u), v, 100 * v / math.Max(most, 1e-9)})
		}
		blocks = append(blocks, b)
	}
	commonTime(data, func(s *series) (*[]float64, *[]float64) { return &s.UtilT, &s.Use })
	js, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("report html: %w", err)
	}
	var table strings.Builder
	if err := r.WriteText(&table); err != nil {
		return err
	}
	err = reportPage.Execute(w, map[string]any{
		"Trace": r.Trace.File, "Table": table.String(), "Blocks": blocks,
		"CSS": template.CSS(uplotCSS), "UPlot": template.JS(uplotJS), "Data": template.JS(js),
	})
	if err != nil {
		return fmt.Errorf("report html: %w", err)
	}
	return nil
}

var reportPage = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>gpusched sim — {{.Trace}}</title>
<style>{{.CSS}}
body{font:14px system-ui,sans-serif;margin:1rem;max-width:1100px}pre{overflow-x:auto;font-size:12px}
.charts{display:flex;flex-wrap:wrap;gap:1rem}.bars{display:flex;flex-wrap:wrap;gap:1.5rem}
.bar{display:flex;align-items:center;gap:.4rem;font-size:12px}.bar span.b{background:#4a7;height:10px;display:inline-block}
</style></head><body>
<h1>Policy comparison: {{.Trace}}</h1>
<pre>{{.Table}}</pre>
<div class="charts"><div id="wait"></div><div id="jct"></div><div id="util"></div></div>
<h2>Mean bounded slowdown per user</h2>
<div class="bars">{{range .Blocks}}<div><h3>{{.Policy}}</h3>{{range .Bars}}
<div class="bar"><code>{{.User}}</code><span class="b" style="width:{{printf "%.0f" .Width}}px"></span>{{printf "%.1f" .Value}}</div>{{end}}</div>{{end}}</div>
<script>{{.UPlot}}</script>
<script>
const data = {{.Data}};
const colors = ["#1f77b4","#d62728","#2ca02c","#ff7f0e","#9467bd","#8c564b","#e377c2","#7f7f7f"];
function cdf(el, title, key) {
  const xs = [...new Set(data.flatMap(s => s[key].map(p => p[0])))].sort((a,b)=>a-b);
  const ys = data.map(s => xs.map(x => { let y = null; for (const p of s[key]) { if (p[0] <= x) y = p[1]; else break; } return y ?? 0; }));
  new uPlot({title, width: 520, height: 300, scales: {x: {time: false}},
    axes: [{label: "hours"}, {label: "share of jobs"}],
    series: [{}, ...data.map((s,i) => ({label: s.Name, stroke: colors[i % colors.length], paths: uPlot.paths.stepped({align: 1})}))]},
    [xs, ...ys], document.getElementById(el));
}
cdf("wait", "CDF of waits", "Wait");
cdf("jct", "CDF of JCTs", "JCT");
if (data.length && data[0].UtilT) {
  new uPlot({title: "GPUs held (runs that completed)", width: 520, height: 300, scales: {x: {time: false}},
    axes: [{label: "days"}, {label: "share of GPUs"}],
    series: [{}, ...data.map((s,i) => ({label: s.Name, stroke: colors[i % colors.length]}))]},
    [data[0].UtilT, ...data.map(s => s.Use)], document.getElementById("util"));
}
</script></body></html>
`))

// commonTime resamples every series' utilization onto the time axis of the
// longest one (a series is 0 past its own end), as uPlot wants one x axis.
func commonTime[S any](ss []S, get func(*S) (*[]float64, *[]float64)) {
	var axis []float64
	for i := range ss {
		t, _ := get(&ss[i])
		if len(*t) > 0 && (len(axis) == 0 || (*t)[len(*t)-1] > axis[len(axis)-1]) {
			axis = *t
		}
	}
	for i := range ss {
		t, u := get(&ss[i])
		out := make([]float64, len(axis))
		for k, x := range axis {
			j, _ := slices.BinarySearch(*t, x)
			if j < len(*t) && (*t)[j] == x || j > 0 && j < len(*t) {
				out[k] = (*u)[min(j, len(*u)-1)]
			}
		}
		*t, *u = axis, out
	}
}
