package web_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The booking form takes GPUs as its checkboxes send them (ids) and as
// the pages name them ("sim-node-1:4,5"); an unknown node or index, or
// text that names no GPU, is refused with a sentence and nothing is booked.
func TestBookingFormGPUNames(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	ids := namedNodes(t, s)
	ana := s.Login(t, "ana@example.com")
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 3)
	hour := 0
	form := func(gpuIDs ...string) url.Values {
		hour += 2
		return url.Values{"gpu_ids": gpuIDs, "note": {"named"},
			"starts_at": {day.Add(time.Duration(hour) * time.Hour).Format("2006-01-02T15:04")},
			"ends_at":   {day.Add(time.Duration(hour+1) * time.Hour).Format("2006-01-02T15:04")}}
	}
	booked := func(t *testing.T) []int64 {
		t.Helper()
		var id int64
		if err := s.DB.Bun.NewRaw(`SELECT coalesce(max(id), 0) FROM bookings`).Scan(t.Context(), &id); err != nil || id == 0 {
			return nil
		}
		b, err := models.GetBooking(t.Context(), s.DB.Bun, id)
		if err != nil {
			t.Fatal(err)
		}
		return b.GPUIDs
	}
	accepted := map[string]struct {
		values []string
		want   []int64
	}{
		"one name, two indices": {[]string{"sim-node-1:4,5"}, []int64{ids["sim-node-1:4"], ids["sim-node-1:5"]}},
		"a name per value":      {[]string{"sim-node-2:0", "sim-node-1:7"}, []int64{ids["sim-node-2:0"], ids["sim-node-1:7"]}},
		"checkbox ids":          {[]string{itoa(ids["sim-node-1:1"])}, []int64{ids["sim-node-1:1"]}},
	}
	for name, tc := range accepted { // one at a time: each reads the last booking
		t.Run(name, func(t *testing.T) {
			if st, body, _ := postForm(t, s, ana, "/bookings", form(tc.values...)); st != 303 {
				t.Fatalf("%d %s", st, humanText(t, body))
			}
			got := booked(t)
			slices.Sort(got)
			slices.Sort(tc.want)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("booked GPUs (-want +got):\n%s", d)
			}
		})
	}
	refused := map[string]struct {
		value  string
		status int
		want   string
	}{
		"an unknown node":     {"sim-node-9:0", 400, "no GPU sim-node-9:0"},
		"an index past eight": {"sim-node-1:8", 400, "no GPU sim-node-1:8"},
		"not a name":          {"the big one", 400, "is not a GPU"},
	}
	for name, tc := range refused {
		t.Run("refused: "+name, func(t *testing.T) {
			before := booked(t)
			st, body, _ := postForm(t, s, ana, "/bookings", form(tc.value))
			if st != tc.status || !strings.Contains(humanText(t, body), tc.want) {
				t.Errorf("%d, want %d saying %q:\n%s", st, tc.status, tc.want, humanText(t, body))
			}
			if !cmp.Equal(before, booked(t)) {
				t.Error("a refused form booked")
			}
		})
	}
}
