package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The API books MIG slices by profile (gpu_model "1g.10gb"), refuses more
// slices than the node has, and refuses a GPU in MIG mode named by
// node:index with a 400 that says it is split into slices.
func TestBookingMIGSlicesAPI(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	node, _ := testdb.MIGNode(t, s.DB, 1, 7)
	tok, _ := s.UserToken(t, models.RoleMember)
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
	from, to := day.Format(time.RFC3339), day.Add(time.Hour).Format(time.RFC3339)
	tests := map[string]struct {
		body     string
		wantCode int
		wantText string
	}{
		"two slices":                 {fmt.Sprintf(`{"gpu_count":2,"gpu_model":"1g.10gb","starts_at":%q,"ends_at":%q}`, from, to), 201, `"gpu_model":"1g.10gb"`},
		"more slices than there are": {fmt.Sprintf(`{"gpu_count":8,"gpu_model":"1g.10gb","starts_at":%q,"ends_at":%q}`, from, to), 422, "1g.10gb"},
		"the GPU by node:index": {fmt.Sprintf(`{"gpu_ids":"%s:0","starts_at":%q,"ends_at":%q}`, node.Name, from, to), 400,
			"split into MIG slices (7 × 1g.10gb)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, body := s.Do(t, "POST", "/api/v1/bookings", tok, tc.body)
			if st != tc.wantCode || !strings.Contains(string(body), tc.wantText) {
				t.Errorf("POST %s: %d %s, want %d with %q", tc.body, st, body, tc.wantCode, tc.wantText)
			}
			if st == 201 {
				var b api.Booking
				mustJSON(t, body, &b)
				if b.GPUCount != 2 {
					t.Errorf("gpu_count %d, want 2", b.GPUCount)
				}
			}
		})
	}
}
