package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sweepRow describes one route of the JSON API for the malformed-input
// sweep: who calls it, the concrete path (placeholders {job}, {booking},
// {hold}, {node}, {node_name} are filled from the fixture), the query
// parameters it reads, and a valid body that the sweep breaks field by
// field. The valid request itself is never sent, so every request of the
// sweep that is not a GET must be refused with a 4xx, and nothing may be
// written; only the mutations a row accepts are sent afterwards.
type sweepRow struct {
	as    string   // "member", "admin" or "node"
	path  string   // "" for the route's own path
	query []string // query parameters the route reads
	body  string   // a valid JSON body; "" for routes without one
	// accepts lists mutations (by name, see mutations) a route may answer
	// with a 2xx because they are valid requests that write nothing.
	accepts []string
}

// sweepRows covers every route of /api and the scoring aliases, keyed
// "METHOD PATH" as echo lists them. A route without a row fails the sweep:
// add a row for each new route.
func sweepRows(preset string) map[string]sweepRow {
	bookingFrom := time.Now().Add(72 * time.Hour).UTC().Truncate(time.Hour)
	booking := fmt.Sprintf(`{"gpu_count":1,"gpu_model":"","gpu_ids":[],"starts_at":%q,"ends_at":%q,"note":"sweep"}`,
		bookingFrom.Format(time.RFC3339), bookingFrom.Add(time.Hour).Format(time.RFC3339))
	hold := `{"monitor":"log","user_region":"eu","job_type":"train","gpu_count":1,"gpu_model":"","requirements":{"gpu_count":1},"ttl_s":60}`
	return map[string]sweepRow{
		"GET /api/v1/openapi.json": {as: "member"},
		"ANY /api/v1/*":            {as: "member", path: "/api/v1/no-such-route"},

		"GET /api/v1/me":                    {as: "member"},
		"GET /api/v1/cluster/gpu-status":    {as: "member"},
		"GET /api/v1/cluster/idle-gpus":     {as: "member", query: []string{"days"}},
		"POST /api/v1/cluster/gpu-allocate": {as: "member", body: `{"job_id":"sweep","gpu_count":1,"memory_gb":10,"gpu_model":"","priority":"normal","estimated_duration":"1h","name":"sweep","allow_multi_node":false,"timeout_s":0,"ttl_s":600}`, accepts: []string{"body.estimated_duration: number", "body.memory_gb: 1.5", "body.timeout_s: 1.5"}},
		"POST /api/v1/cluster/gpu-release":  {as: "member", body: `{"job_id":{job}}`},
		"POST /api/v1/cluster/gpu-renew":    {as: "member", body: `{"job_id":{job},"ttl_s":600}`},
		"GET /api/v1/queue":                 {as: "member", query: []string{"state", "user", "window", "reason", "limit"}},
		"POST /api/v1/queue/submit":         {as: "member", body: `{"command":"echo hi","gpu_count":1,"memory_gb":10,"gpu_model":"","priority":"normal","estimated_duration":"1h","name":"sweep","allow_multi_node":false,"preemptible":true,"executor":"lease","workdir":"/tmp","env":{"A":"b"},"job_type":"train","max_retries":0}`, accepts: []string{"body.estimated_duration: number", "body.memory_gb: 1.5"}},
		"GET /api/v1/queue/statistics":      {as: "member"},
		"DELETE /api/v1/queue/:id":          {as: "member", path: "/api/v1/queue/{job}"},
		"PATCH /api/v1/queue/:id/priority":  {as: "member", path: "/api/v1/queue/{job}/priority", body: `{"priority":"high"}`},
		"GET /api/v1/holds":                 {as: "member"},
		"POST /api/v1/holds":                {as: "member", body: hold},
		"DELETE /api/v1/holds/:id":          {as: "member", path: "/api/v1/holds/{hold}"},
		"GET /api/v1/jobs/:id":              {as: "member", path: "/api/v1/jobs/{job}"},
		"GET /api/v1/jobs/:id/logs":         {as: "member", path: "/api/v1/jobs/{job}/logs", query: []string{"offset", "limit", "run", "part"}},
		"GET /api/v1/bookings":              {as: "member", query: []string{"from", "to", "mine"}},
		"POST /api/v1/bookings":             {as: "member", body: booking},
		// Bookings: edits, series, import and export (calendar).
		"GET /api/v1/bookings/:id":           {as: "member", path: "/api/v1/bookings/{booking}"},
		"PATCH /api/v1/bookings/:id":         {as: "member", path: "/api/v1/bookings/{booking}", body: `{"note":"sweep edit","gpu_count":1}`},
		"POST /api/v1/bookings/:id/end":      {as: "member", path: "/api/v1/bookings/{booking}/end"},
		"POST /api/v1/bookings/series":       {as: "member", body: `{"gpu_count":1,"gpu_model":"","note":"sweep","time_zone":"Europe/Berlin","first_day":"` + bookingFrom.Format("2006-01-02") + `","last_day":"` + bookingFrom.Add(48*time.Hour).Format("2006-01-02") + `","days":["mon","tue","wed","thu","fri"],"start_time":"09:00","end_time":"18:00"}`},
		"DELETE /api/v1/bookings/series/:id": {as: "member", path: "/api/v1/bookings/series/999999"},
		"POST /api/v1/bookings/import":       {as: "admin", query: []string{"dry_run", "tz", "create_users", "skip_invalid"}},
		"GET /api/v1/bookings/export":        {as: "member", query: []string{"from", "until", "format", "tz"}},
		// Notifications and idle GPUs.
		"GET /api/v1/me/notifications":                 {as: "member"},
		"PUT /api/v1/me/notifications":                 {as: "member", body: `{"events":{"job.finished":["in_app"]},"quiet_start":"22:00","quiet_end":"07:00"}`},
		"GET /api/v1/notifications":                    {as: "member", query: []string{"limit", "unread"}},
		"POST /api/v1/notifications/read":              {as: "member", body: `{"ids":[1]}`},
		"GET /api/v1/notifications/deliveries":         {as: "member", query: []string{"limit"}},
		"GET /api/v1/notifications/channels":           {as: "member"},
		"POST /api/v1/notifications/channels":          {as: "member", body: `{"type":"webhook","url":"https://hooks.example.com/sweep","secret":"s3cret","rate_per_minute":10}`},
		"DELETE /api/v1/notifications/channels/:id":    {as: "member", path: "/api/v1/notifications/channels/999999"},
		"POST /api/v1/notifications/channels/:id/test": {as: "member", path: "/api/v1/notifications/channels/999999/test"},
		"GET /api/v1/jobs/:id/idle":                    {as: "member", path: "/api/v1/jobs/{job}/idle"},
		"PUT /api/v1/jobs/:id/idle":                    {as: "member", path: "/api/v1/jobs/{job}/idle", body: `{"idle_ok":true}`},
		// Sessions (sign-in) and the node's own view (operations).
		"DELETE /api/v1/users/:id/sessions":          {as: "admin", path: "/api/v1/users/999999/sessions"},
		"GET /api/v1/nodes/self":                     {as: "node"},
		"DELETE /api/v1/bookings/:id":                {as: "member", path: "/api/v1/bookings/{booking}"},
		"GET /api/v1/orchestrator/status":            {as: "member"},
		"GET /api/v1/orchestrator/policies":          {as: "member"},
		"GET /api/v1/orchestrator/policies/presets":  {as: "member"},
		"GET /api/v1/usage":                          {as: "member", query: []string{"range", "node", "from", "to"}},
		"GET /api/v1/history":                        {as: "member", query: []string{"mine", "team", "user", "state", "from", "to", "until", "since", "limit", "cursor"}},
		"GET /api/v1/accounting":                     {as: "member", query: []string{"month", "week", "from", "to", "by", "tz", "format"}},
		"GET /api/v1/jobs/history":                   {as: "member", query: []string{"mine", "team", "user", "state", "from", "to", "until", "since", "limit", "cursor"}},
		"GET /api/v1/usage/accounting":               {as: "member", query: []string{"period", "month", "week", "from", "to", "by", "tz", "format"}},
		"POST /api/v1/orchestrator/start":            {as: "admin"},
		"POST /api/v1/orchestrator/stop":             {as: "admin"},
		"PUT /api/v1/orchestrator/policies":          {as: "admin", body: `{"preset":"` + preset + `"}`},
		"POST /api/v1/cluster/nodes/:name/drain":     {as: "admin", path: "/api/v1/cluster/nodes/{node_name}/drain"},
		"POST /api/v1/cluster/nodes/:name/undrain":   {as: "admin", path: "/api/v1/cluster/nodes/{node_name}/undrain"},
		"PUT /api/v1/cluster/nodes/:name/mig-layout": {as: "admin", path: "/api/v1/cluster/nodes/{node_name}/mig-layout", body: `{"layout":"gpu 0: whole"}`},
		"GET /api/v1/holds/stats":                    {as: "admin", query: []string{"all"}},

		"POST /api/v1/scoring/score":         {as: "member", body: `{"job_type":"train","features":{"a":1},"candidate_gpu_types":["H100"],"colocated_job_types":["x"]}`, accepts: []string{"body.features."}},
		"POST /api/v1/scoring/observe":       {as: "member", body: `{"job_type":"train","gpu_type":"H100","measured_runtime_s":60,"colocated_job_types":["x"]}`, accepts: []string{"body.measured_runtime_s: 1.5"}},
		"GET /api/v1/scoring/healthz":        {as: "member"},
		"GET /api/v1/scoring/metrics":        {as: "member"},
		"POST /v1/score":                     {as: "member", body: `{"job_type":"train","features":{"a":1},"candidate_gpu_types":["H100"],"colocated_job_types":["x"]}`, accepts: []string{"body.features."}},
		"POST /v1/observe":                   {as: "member", body: `{"job_type":"train","gpu_type":"H100","measured_runtime_s":60,"colocated_job_types":["x"]}`, accepts: []string{"body.measured_runtime_s: 1.5"}},
		"POST /api/gpuscheduler/v1/allocate": {as: "member", body: hold},

		"POST /api/v1/nodes/register": {as: "node", body: `{"hostname":"gpu-a.lab","agent_version":"1.0","gpus":[{"index":0,"uuid":"GPU-a-0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559,"nvlink_group":0}]}`, accepts: []string{"body.gpus[0].nvlink_group: -1"}},
		"POST /api/v1/nodes/:id/heartbeat": {as: "node", path: "/api/v1/nodes/{node}/heartbeat", body: `{"gpus":[{"uuid":"GPU-a-0","utilization_pct":50,"memory_used_mib":100,"temperature_c":40,"power_w":100,"power_limit_w":700,"health":"ok","health_reason":"","processes":[{"pid":1,"user":"ana","name":"python","memory_mib":10}]}],"leases":[{job}]}`,
			accepts: []string{"body.gpus[0].temperature_c: -1"}},
		"POST /api/v1/nodes/:id/memory":               {as: "node", path: "/api/v1/nodes/{node}/memory", body: `{"readings":[{"job_id":{job},"used_mib":100,"limit_mib":20000}]}`},
		"GET /api/v1/nodes/:id/commands":              {as: "node", path: "/api/v1/nodes/{node}/commands?wait=0", query: []string{"after"}},
		"POST /api/v1/nodes/:id/commands/:cmd/result": {as: "node", path: "/api/v1/nodes/{node}/commands/1/result", body: `{"ok":true,"message":"started","pid":42,"running":true}`},
		"POST /api/v1/nodes/:id/commands/:cmd/exit":   {as: "node", path: "/api/v1/nodes/{node}/commands/1/exit", body: `{"exit_code":0,"signal":"","lost":false,"message":"done"}`},
		"POST /api/v1/nodes/:id/commands/:cmd/logs":   {as: "node", path: "/api/v1/nodes/{node}/commands/1/logs", body: `{"offset":0,"data":"aGVsbG8="}`},
		"POST /api/v1/nodes/:id/leases":               {as: "node", path: "/api/v1/nodes/{node}/leases", body: `{"pid":42,"pid_start":12345,"unix_user":"ana","gpu_count":1,"gpu_model":"","memory_gb":10,"estimated_duration":"2h","name":"sweep","priority":"normal"}`},
		"GET /api/v1/nodes/:id/leases":                {as: "node", path: "/api/v1/nodes/{node}/leases"},
		"GET /api/v1/nodes/:id/leases/:job":           {as: "node", path: "/api/v1/nodes/{node}/leases/{job}?wait=0"},
		// Interactive sessions ({job} is not one: the valid requests answer 404, the malformed 4xx).
		"POST /api/v1/sessions":                      {as: "member", body: `{"kind":"web","gpu_count":1,"command":"true"}`},
		"GET /api/v1/sessions":                       {as: "member", query: []string{"all", "everyone"}},
		"GET /api/v1/sessions/:id":                   {as: "member", path: "/api/v1/sessions/{job}"},
		"DELETE /api/v1/sessions/:id":                {as: "member", path: "/api/v1/sessions/{job}"},
		"POST /api/v1/nodes/:id/sessions/:job/ready": {as: "node", path: "/api/v1/nodes/{node}/sessions/{job}/ready", body: `{"agent_url":"http://127.0.0.1:9124","token_prefix":"gsn_abcdefgh"}`},
		"DELETE /api/v1/nodes/:id/leases/:job":       {as: "node", path: "/api/v1/nodes/{node}/leases/{job}"},
	}
}

// sweepRequest is one malformed request.
type sweepRequest struct {
	name, path, contentType string
	body                    []byte
}

// badUTF8 stands in a marshalled body for a string holding invalid UTF-8.
const badUTF8 = "\u2063bad-utf8\u2063"

// bodyMutations breaks a valid JSON body: whole-body garbage, then each
// field (nested objects and arrays too) of the wrong type, huge or odd
// numbers, NUL and invalid UTF-8 in text.
func bodyMutations(valid string) []sweepRequest {
	out := []sweepRequest{
		{name: "empty"}, {name: "truncated", body: []byte(valid[:len(valid)/2])},
		{name: "array", body: []byte(`[]`)}, {name: "string", body: []byte(`"x"`)}, {name: "number", body: []byte(`1e400`)},
		{name: "null", body: []byte(`null`)}, {name: "unknown field", body: []byte(`{"no_such_field_xyz":1}`)},
		{name: "trailing data", body: []byte(valid + `{}`)},
		{name: "deep nesting", body: []byte(strings.Repeat("[", 100000))},
		{name: "huge body", body: []byte(`{"name":"` + strings.Repeat("a", 3<<20) + `"}`)},
		{name: "not JSON content type", body: []byte(valid), contentType: "text/plain"},
		{name: "raw NUL byte", body: []byte(strings.Replace(valid, `"`, "\"\x00", 2))},
	}
	var doc any
	if err := json.Unmarshal([]byte(valid), &doc); err != nil {
		panic(fmt.Sprintf("sweep: row body %s is not JSON: %v", valid, err))
	}
	var walk func(path string, v any, set func(any) any)
	walk = func(path string, v any, set func(any) any) {
		add := func(what string, repl any) {
			b, _ := json.Marshal(set(repl))
			b = []byte(strings.ReplaceAll(string(b), badUTF8, "a\xffb\xc3"))
			out = append(out, sweepRequest{name: path + ": " + what, body: b})
		}
		switch x := v.(type) {
		case string:
			add("number", 123)
			add("object", map[string]any{})
			add("NUL", "a\x00b")
			add("invalid UTF-8", badUTF8)
		case float64:
			add("string", "x1")
			add("array", []any{})
			for _, n := range []string{"1e400", "1e308", "-1e308", "9223372036854775808", "-9223372036854775809", "-1", "1.5"} {
				add(n, json.Number(n))
			}
		case bool:
			add("string", "true")
			add("number", 1)
		case map[string]any:
			add("string", "x")
			add("array", []any{})
			for _, k := range sweepKeys(x) {
				walk(path+"."+k, x[k], func(r any) any {
					c := cloneMap(x)
					c[k] = r
					return set(c)
				})
			}
		case []any:
			add("string", "x")
			add("object", map[string]any{})
			for i := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), x[i], func(r any) any {
					c := append([]any(nil), x...)
					c[i] = r
					return set(c)
				})
			}
		}
	}
	walk("body", doc, func(r any) any { return r })
	return out
}

func cloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func sweepKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pathMutations breaks each id of a path and adds bad query values: NUL and
// invalid UTF-8 in any parameter, huge and odd numbers in those it reads.
func pathMutations(path string, ids []string, query []string) []sweepRequest {
	var out []sweepRequest
	for _, id := range ids {
		for _, bad := range []string{"0", "-1", "99999999999999999999", "1.5", "abc", "%00", "%FF", "a%00b", "%E2%82"} {
			out = append(out, sweepRequest{name: "path " + id + "=" + bad, path: strings.Replace(path, "/"+id, "/"+bad, 1)})
		}
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	for _, q := range append([]string{"x"}, query...) {
		for _, bad := range []string{"%00", "a%FFb", "%C3"} {
			out = append(out, sweepRequest{name: "query " + q + "=" + bad, path: path + sep + q + "=" + bad})
		}
		if q == "x" {
			continue
		}
		for _, bad := range []string{"99999999999999999999", "-99999999999999999999", "1e400", "-1", "NaN", "9999-99-99T99:99:99Z"} {
			out = append(out, sweepRequest{name: "query " + q + "=" + bad, path: path + sep + q + "=" + bad})
		}
	}
	return out
}

// sweepFingerprint counts the rows of every table the API writes (not
// River's, not telemetry samples) and hashes the rows a request could
// change in place (settings but the last pass's figures, which the
// scheduler's own passes write).
func sweepFingerprint(t *testing.T, s *testserver.Server) string {
	t.Helper()
	ctx := context.Background()
	var tables []string
	if err := s.DB.Bun.NewRaw(`SELECT table_name FROM information_schema.tables
WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'river%'
  AND table_name NOT IN ('gpu_samples', 'gpu_rollups', 'queue_samples', 'schema_migrations', 'settings')
ORDER BY table_name`).Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, tb := range tables {
		parts = append(parts, fmt.Sprintf("'%s=' || (SELECT count(*) FROM %q)", tb, tb))
	}
	parts = append(parts,
		`'jobs#' || (SELECT md5(coalesce(string_agg(concat_ws('|', id, state, priority, name, command, env::text), ',' ORDER BY id), '')) FROM jobs)`,
		`'bookings#' || (SELECT md5(coalesce(string_agg(concat_ws('|', id, canceled_at, starts_at, ends_at, note), ',' ORDER BY id), '')) FROM bookings)`,
		`'settings#' || (SELECT md5(coalesce(string_agg(concat_ws('|', key, value::text), ',' ORDER BY key), '')) FROM settings WHERE key NOT IN ('scheduler.last_pass', 'node_liveness_sweep'))`,
		`'nodes#' || (SELECT md5(coalesce(string_agg(concat_ws('|', id, drained, hostname, agent_version, labels::text), ',' ORDER BY id), '')) FROM nodes)`,
		`'gpus#' || (SELECT md5(coalesce(string_agg(concat_ws('|', id, drained, utilization_pct, memory_used_mib, processes::text, health), ',' ORDER BY id), '')) FROM gpus)`)
	var fp string
	if err := s.DB.Bun.NewRaw("SELECT concat_ws(' ', "+strings.Join(parts, ", ")+")").Scan(ctx, &fp); err != nil {
		t.Fatal(err)
	}
	return fp
}

// Every route of the JSON API, sent malformed bodies (wrong types, huge
// numbers, NUL, invalid UTF-8, huge and deep bodies), bad ids and bad query
// values: never a 5xx, never a 2xx, and nothing written.
func TestMalformedInputSweep(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	nodeTok, node := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(8)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	memberTok, _ := s.UserToken(t, models.RoleMember)
	if st, body := s.Do(t, "POST", "/api/v1/orchestrator/stop", adminTok, ""); st != 200 {
		t.Fatalf("stop: %d %s", st, body)
	}
	idOf := func(st int, body []byte, want int) string {
		t.Helper()
		if st != want {
			t.Fatalf("fixture: %d %s", st, body)
		}
		var out struct {
			ID int64 `json:"id"`
		}
		mustJSON(t, body, &out)
		return fmt.Sprint(out.ID)
	}
	st, b := s.Do(t, "POST", "/api/v1/queue/submit", memberTok, `{"gpu_count":1,"executor":"lease","name":"sweep"}`)
	job := idOf(st, b, 201)
	from := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Hour)
	st, b = s.Do(t, "POST", "/api/v1/bookings", memberTok, fmt.Sprintf(`{"gpu_count":1,"starts_at":%q,"ends_at":%q}`,
		from.Format(time.RFC3339), from.Add(time.Hour).Format(time.RFC3339)))
	booking := idOf(st, b, 201)
	st, b = s.Do(t, "POST", "/api/v1/holds", memberTok, `{"gpu_count":1}`)
	hold := idOf(st, b, 202)
	fill := strings.NewReplacer("{job}", job, "{booking}", booking, "{hold}", hold, "{node}", fmt.Sprint(node.ID), "{node_name}", node.Name)
	ids := map[string]string{job: "{job}", booking: "{booking}", hold: "{hold}", fmt.Sprint(node.ID): "{node}", node.Name: "{node_name}"}
	tokens := map[string]string{"member": memberTok, "admin": adminTok, "node": nodeTok}

	rows := sweepRows("fifo")
	var keys []string
	for _, r := range s.Web.Echo.Routes() {
		if r.Method == echoRouteNotFound || !(strings.HasPrefix(r.Path, "/api/") || strings.HasPrefix(r.Path, "/v1/")) {
			continue
		}
		key := r.Method + " " + r.Path
		if _, ok := rows[key]; !ok {
			if _, ok := rows["ANY "+r.Path]; ok {
				if r.Method == http.MethodPost {
					keys = append(keys, "ANY "+r.Path)
				}
				continue
			}
			t.Errorf("route %s has no row in sweepRows: add one with a valid body", key)
			continue
		}
		keys = append(keys, key)
	}
	sort.Strings(keys)

	before := sweepFingerprint(t, s)
	client := &http.Client{Timeout: 30 * time.Second}
	sent := 0
	type later struct {
		key, method string
		row         sweepRow
		m           sweepRequest
	}
	var valid []later // mutations that are valid requests, sent after the fingerprint
	send := func(key, method string, row sweepRow, m sweepRequest) (int, []byte) {
		sent++
		ct := m.contentType
		if ct == "" {
			ct = "application/json"
		}
		req, err := http.NewRequest(method, s.URL+m.path, strings.NewReader(string(m.body)))
		if err != nil {
			t.Errorf("%s %s: %v", key, m.name, err)
			return 0, nil
		}
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Authorization", "Bearer "+tokens[row.as])
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s (%s): %v", key, m.name, err)
			return 0, nil
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		if resp.StatusCode >= 500 {
			t.Errorf("%s (%s): %d %s", key, m.name, resp.StatusCode, out)
		}
		return resp.StatusCode, out
	}
	for _, key := range keys {
		row := rows[key]
		method, routePath, _ := strings.Cut(key, " ")
		if method == "ANY" {
			method = http.MethodPost
		}
		p := row.path
		if p == "" {
			p = routePath
		}
		concrete := fill.Replace(p)
		var reqs []sweepRequest
		var pathIDs []string
		for _, seg := range strings.Split(concrete, "/") {
			if _, ok := ids[seg]; ok && strings.Contains(p, ids[seg]) {
				pathIDs = append(pathIDs, seg)
			}
		}
		for _, m := range pathMutations(concrete, pathIDs, row.query) {
			if row.body != "" {
				m.body = []byte(fill.Replace(row.body))
			}
			reqs = append(reqs, m)
		}
		if row.body != "" {
			for _, m := range bodyMutations(fill.Replace(row.body)) {
				m.path = concrete
				reqs = append(reqs, m)
			}
		}
		for _, m := range reqs {
			if accepted(row, m.name) {
				valid = append(valid, later{key, method, row, m})
				continue
			}
			// A GET writes nothing, so it may ignore what it does not read.
			st, out := send(key, method, row, m)
			switch {
			case st > 0 && st < 400 && method != http.MethodGet:
				t.Errorf("%s (%s): %d, want a refusal: %s", key, m.name, st, out)
			case strings.HasSuffix(m.name, ": NUL") || strings.HasSuffix(m.name, ": invalid UTF-8"):
				// Text fields answer invalid_text; times and bytes fail to parse first.
				if st != http.StatusBadRequest || !strings.Contains(string(out), "invalid_text") && !strings.Contains(string(out), "invalid_json") {
					t.Errorf("%s (%s): %d %s, want a 400 naming the field", key, m.name, st, out)
				}
			}
		}
	}
	if after := sweepFingerprint(t, s); after != before {
		b, a := strings.Fields(before), strings.Fields(after)
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Errorf("the sweep wrote to the database: part %d was %s, is %s", i, b[i], a[i])
			}
		}
	}
	for _, l := range valid {
		send(l.key, l.method, l.row, l.m)
	}
	t.Logf("%d malformed requests over %d routes", sent, len(keys))
}

func accepted(row sweepRow, name string) bool {
	for _, a := range row.accepts {
		if strings.HasPrefix(name, a) {
			return true
		}
	}
	return false
}
