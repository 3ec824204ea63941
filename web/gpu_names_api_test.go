package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// namedNodes registers sim-node-1 and sim-node-2 with 8 GPUs each and
// returns their GPU ids by name ("sim-node-1:4").
func namedNodes(t *testing.T, s *testserver.Server) map[string]int64 {
	t.Helper()
	for _, name := range []string{"sim-node-1", "sim-node-2"} {
		tok, _ := s.NodeToken(t, name)
		if st, body := s.Do(t, "POST", "/api/v1/nodes/register", tok, registerBodyFor(name, 8)); st != 200 {
			t.Fatalf("register %s: %d %s", name, st, body)
		}
	}
	var rows []struct {
		ID   int64  `bun:"id"`
		Name string `bun:"name"`
	}
	if err := s.DB.Bun.NewRaw(`SELECT g.id, n.name || ':' || g.idx AS name FROM gpus g JOIN nodes n ON n.id = g.node_id`).
		Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Name] = r.ID
	}
	return out
}

// Every API field that names GPUs takes node:index as pages show it
// ("sim-node-1:4,5", a list of names, or both nodes), and ids still; the
// answer names them back.
func TestBookingGPUNames(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	ids := namedNodes(t, s)
	tok, _ := s.UserToken(t, models.RoleMember)
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
	window := func(h int) (string, string) {
		return day.Add(time.Duration(h) * time.Hour).Format(time.RFC3339), day.Add(time.Duration(h+1) * time.Hour).Format(time.RFC3339)
	}
	tests := map[string]struct {
		gpuIDs    string // the JSON value of gpu_ids
		wantIDs   []int64
		wantNames []string
	}{
		"one string, one node": {`"sim-node-1:4,5"`, []int64{ids["sim-node-1:4"], ids["sim-node-1:5"]}, []string{"sim-node-1:4", "sim-node-1:5"}},
		"two nodes":            {`"sim-node-1:6,sim-node-2:0"`, []int64{ids["sim-node-1:6"], ids["sim-node-2:0"]}, []string{"sim-node-1:6", "sim-node-2:0"}},
		"a list of names":      {`["SIM-NODE-2:3", "sim-node-2:4"]`, []int64{ids["sim-node-2:3"], ids["sim-node-2:4"]}, []string{"sim-node-2:3", "sim-node-2:4"}},
		"ids, as before":       {fmt.Sprintf(`[%d, %d]`, ids["sim-node-2:6"], ids["sim-node-2:7"]), []int64{ids["sim-node-2:6"], ids["sim-node-2:7"]}, []string{"sim-node-2:6", "sim-node-2:7"}},
	}
	hour := 0
	for name, tc := range tests {
		from, to := window(hour)
		hour += 2
		t.Run(name, func(t *testing.T) {
			st, body := s.Do(t, "POST", "/api/v1/bookings", tok, fmt.Sprintf(`{"gpu_ids":%s,"starts_at":%q,"ends_at":%q}`, tc.gpuIDs, from, to))
			if st != 201 {
				t.Fatalf("book %s: %d %s", tc.gpuIDs, st, body)
			}
			var b api.Booking
			mustJSON(t, body, &b)
			if d := cmp.Diff(tc.wantIDs, b.GPUIDs); d != "" {
				t.Errorf("gpu_ids (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantNames, b.GPUNames); d != "" {
				t.Errorf("gpu_names (-want +got):\n%s", d)
			}
			if b.GPUCount != len(tc.wantIDs) {
				t.Errorf("gpu_count %d", b.GPUCount)
			}
			// GET names them too.
			_, got := s.Do(t, "GET", fmt.Sprintf("/api/v1/bookings/%d", b.ID), tok, "")
			if !strings.Contains(string(got), `"gpu_names":["`+tc.wantNames[0]) {
				t.Errorf("GET does not name the GPUs: %s", got)
			}
		})
	}

	// An edit moves a booking to other named GPUs; a series books them
	// (another member's: one may hold only so many bookings).
	tok, _ = s.UserToken(t, models.RoleMember)
	from, to := window(20)
	_, body := s.Do(t, "POST", "/api/v1/bookings", tok, fmt.Sprintf(`{"gpu_ids":"sim-node-1:4,5","starts_at":%q,"ends_at":%q}`, from, to))
	var b api.Booking
	mustJSON(t, body, &b)
	st, body := s.Do(t, "PATCH", fmt.Sprintf("/api/v1/bookings/%d", b.ID), tok, `{"gpu_ids":"sim-node-2:1"}`)
	if st != 200 || !strings.Contains(string(body), `"gpu_names":["sim-node-2:1"]`) || !strings.Contains(string(body), fmt.Sprintf(`"gpu_ids":[%d]`, ids["sim-node-2:1"])) {
		t.Fatalf("edit to sim-node-2:1: %d %s", st, body)
	}
	first := time.Now().UTC().AddDate(0, 0, 5).Format("2006-01-02")
	st, body = s.Do(t, "POST", "/api/v1/bookings/series", tok, fmt.Sprintf(`{"gpu_ids":"sim-node-1:0,1","first_day":%q,"last_day":%q,
		"start_time":"09:00","end_time":"10:00"}`, first, first))
	if st != 201 || !strings.Contains(string(body), `"gpu_names":["sim-node-1:0","sim-node-1:1"]`) {
		t.Fatalf("series on sim-node-1:0,1: %d %s", st, body)
	}

	// Names the cluster does not have, or cannot be names, are refused, saying so.
	from, to = window(22)
	for name, tc := range map[string]struct {
		gpuIDs string
		status int
		code   string
		says   string
	}{
		"an index past the node's": {`"sim-node-1:9"`, 400, "no_such_gpus", "no GPU sim-node-1:9"},
		"a node that is not there": {`"sim-node-7:0"`, 400, "no_such_gpus", "no GPU sim-node-7:0"},
		"not a name":               {`"sim-node-1:x"`, 400, "invalid_field", "not a GPU index"},
		"an object":                {`{"a":1}`, 400, "invalid_field", "node:index"},
		"the same GPU twice":       {fmt.Sprintf(`["sim-node-1:3", %d]`, ids["sim-node-1:3"]), 400, "invalid_field", "twice"},
	} {
		t.Run("refused: "+name, func(t *testing.T) {
			st, body := s.Do(t, "POST", "/api/v1/bookings", tok, fmt.Sprintf(`{"gpu_ids":%s,"starts_at":%q,"ends_at":%q}`, tc.gpuIDs, from, to))
			msg, code := testserver.APIError(t, body)
			if st != tc.status || code != tc.code || !strings.Contains(msg, tc.says) {
				t.Errorf("%s: %d %s %q; want %d %s %q", tc.gpuIDs, st, code, msg, tc.status, tc.code, tc.says)
			}
		})
	}
}

// Every page that shows a GPU names it node:index: the queue's running
// jobs, the job page, the cluster's tiles, a booking's page and the form's
// choices, the calendar's rows.
func TestPagesNameGPUs(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	namedNodes(t, s)
	browser := s.Login(t, "ana@example.com")
	ana, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := models.CreateUserToken(t.Context(), s.DB.Bun, ana.ID, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	st, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"gpu_count":2,"timeout_s":20,"name":"pair"}`)
	if st != 200 {
		t.Fatalf("allocate: %d %s", st, body)
	}
	var lease api.Allocation
	mustJSON(t, body, &lease)
	held := api.GPURefs{}
	for _, g := range lease.GPUs {
		held = append(held, api.GPURef{Node: g.Node, Index: g.Index})
	}
	start := time.Now().UTC().Truncate(time.Hour).Add(26 * time.Hour)
	st, body = s.Do(t, "POST", "/api/v1/bookings", tok, fmt.Sprintf(`{"gpu_ids":"sim-node-2:4,5","starts_at":%q,"ends_at":%q}`,
		start.Format(time.RFC3339), start.Add(time.Hour).Format(time.RFC3339)))
	if st != 201 {
		t.Fatalf("book: %d %s", st, body)
	}
	var b api.Booking
	mustJSON(t, body, &b)
	pages := map[string]struct {
		path string
		want []string
	}{
		"queue":        {"/queue", []string{`data-field="gpus">` + held.String() + `<`}},
		"job page":     {fmt.Sprintf("/jobs/%d", lease.ID), []string{`data-field="gpu">` + held[0].String() + `<`}},
		"cluster":      {"/", []string{`>sim-node-1:0</h3>`, `>sim-node-2:7</h3>`}},
		"booking page": {fmt.Sprintf("/bookings/%d", b.ID), []string{"sim-node-2:4,5", "sim-node-2:4 NVIDIA H100"}},
		"calendar":     {"/bookings?date=" + start.Format("2006-01-02"), []string{"<strong>sim-node-1:0</strong>", "<strong>sim-node-2:5</strong>", "sim-node-2:4,5"}},
	}
	for name, tc := range pages {
		t.Run(name, func(t *testing.T) {
			page := getPage(t, browser, s.URL+tc.path)
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("%s lacks %q", tc.path, w)
				}
			}
		})
	}
}
