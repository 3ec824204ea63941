package opstest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// repoFile is a path from the repository's root.
func repoFile(t testing.TB, rel string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", rel)
}

// liveMetricNames scrapes /metrics and returns every series name in it.
func liveMetricNames(t testing.TB, server string) map[string]bool {
	t.Helper()
	resp, err := http.Get(server + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	names := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name = line[:i]
		}
		names[name] = true
	}
	return names
}

// promqlWords are PromQL's functions, aggregations and keywords: every other
// identifier outside label matchers and grouping clauses is a metric name.
var promqlWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`sum avg min max count count_values stddev stdvar topk bottomk quantile group
		rate irate increase delta idelta deriv predict_linear histogram_quantile avg_over_time min_over_time max_over_time
		sum_over_time count_over_time last_over_time quantile_over_time stddev_over_time changes resets absent absent_over_time
		time vector scalar abs ceil floor round clamp clamp_min clamp_max label_replace label_join sort sort_desc timestamp
		by without on ignoring group_left group_right bool and or unless offset le inf nan humanizeDuration`) {
		promqlWords[w] = true
	}
}

var (
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping  = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent     = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	grafanaVars   = regexp.MustCompile(`\$\{?[a-zA-Z_]+\}?`)
	promDurations = regexp.MustCompile(`\b\d+(ms|s|m|h|d|w|y)\b`)
)

// metricNames lists the metric names one PromQL expression reads.
func metricNames(expr string) []string {
	e := grafanaVars.ReplaceAllString(expr, "")
	e = promStrings.ReplaceAllString(e, "")
	e = promMatchers.ReplaceAllString(e, " ")
	e = promRanges.ReplaceAllString(e, " ")
	e = promGrouping.ReplaceAllString(e, " ")
	e = promDurations.ReplaceAllString(e, " ")
	var out []string
	for _, w := range promIdent.FindAllString(e, -1) {
		if !promqlWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// exprsOf walks decoded JSON or YAML and collects the values under key.
func exprsOf(v any, key string, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == key {
				*out = append(*out, s)
			} else {
				exprsOf(x, key, out)
			}
		}
	case []any:
		for _, x := range v {
			exprsOf(x, key, out)
		}
	}
}

// The dashboard and the alert rules read only series a live server exports
// (the alerts also Prometheus's own `up` and the blackbox exporter's probe_*).
// The server runs as in production: its log is JSON.
func TestDashboardAndAlertsNameLiveMetrics(t *testing.T) {
	t.Parallel()
	began := time.Now()
	pg := startPG(t)
	t.Logf("PostgreSQL up in %s", time.Since(began).Round(time.Millisecond))
	s := startServer(t, "server", pg.URL)
	t.Logf("server ready at %s", time.Since(began).Round(time.Millisecond))
	token := adminToken(t, pg.URL)
	startNode(t, "gpu-a", s.URL, cli(t, pg.URL, "token", "create", "--node", "gpu-a"), openDir(t, "opstest-state-"))
	if waitNodeUp(t, pg.Pool(), "gpu-a", 20*time.Second) < 0 {
		t.Fatal("node gpu-a not up in 20s")
	}
	ctx := context.Background()
	j, err := submit(ctx, s.URL, token, "sleep 0.2", 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("node up, job submitted at %s", time.Since(began).Round(time.Millisecond))
	if got, d := waitState(t, s.URL, token, j.ID, 20*time.Second, "completed"); d < 0 {
		t.Fatalf("job %d did not complete: %+v", j.ID, got)
	}

	var dash any
	b, err := os.ReadFile(repoFile(t, "deploy/grafana/gpusched.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	var dashExprs []string
	exprsOf(dash, "expr", &dashExprs)
	var rules any
	b, err = os.ReadFile(repoFile(t, "deploy/prometheus/alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &rules); err != nil {
		t.Fatalf("alerts YAML: %v", err)
	}
	var alertExprs []string
	exprsOf(rules, "expr", &alertExprs)
	if len(dashExprs) < 15 || len(alertExprs) < 8 {
		t.Fatalf("found %d dashboard and %d alert expressions", len(dashExprs), len(alertExprs))
	}

	// Series with no rows yet (River's) appear within a scrape or two.
	var missing []string
	poll(10*time.Second, 100*time.Millisecond, func() bool {
		live := liveMetricNames(t, s.URL)
		missing = missing[:0]
		seen := map[string]bool{}
		check := func(exprs []string, allowed func(string) bool) {
			for _, e := range exprs {
				for _, m := range metricNames(e) {
					if !live[m] && !allowed(m) && !seen[m] {
						seen[m] = true
						missing = append(missing, m+" (in "+e+")")
					}
				}
			}
		}
		check(dashExprs, func(string) bool { return false })
		check(alertExprs, func(m string) bool { return m == "up" || strings.HasPrefix(m, "probe_") })
		return len(missing) == 0
	})
	t.Logf("metrics checked at %s", time.Since(began).Round(time.Millisecond))
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("not exported by a live /metrics: %s", m)
	}
	t.Logf("%d dashboard and %d alert expressions read only live series", len(dashExprs), len(alertExprs))

	// Production logs: one JSON object a line.
	logb, _ := os.ReadFile(s.Log)
	lines := 0
	for _, line := range strings.Split(strings.TrimSpace(string(logb)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("a log line is not JSON: %q", line)
			break
		}
		lines++
	}
	if lines == 0 {
		t.Error("the server logged nothing")
	}
}
