package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// gpusched bookings edit / end / import / export against a real server.
func TestBookingsEditEndImportExport(t *testing.T) {
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"a","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559},{"index":1,"uuid":"G1","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, admin := s.UserToken(t, models.RoleAdmin)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	t.Setenv("TZ", "UTC")
	day := time.Now().UTC().Add(24 * time.Hour).Format("2006-01-02")

	out, err := gpusched(t, "book", "-g", "1", "--from", day+" 09:00", "--for", "2h")
	if err != nil {
		t.Fatalf("book: %q %v", out, err)
	}
	id := strings.TrimSuffix(strings.Fields(out)[1], ":")
	out, err = gpusched(t, "bookings", "edit", id, "--for", "5h", "--note", "longer")
	if err != nil || !regexp.MustCompile(`booking \d+ changed: 1 × any, .* – .* 14:00 UTC \(upcoming\) — longer`).MatchString(out) {
		t.Fatalf("edit: %q %v", out, err)
	}
	if _, err := gpusched(t, "bookings", "edit", id, "-g", "3"); err == nil || !strings.Contains(err.Error(), "the cluster has 2") {
		t.Fatalf("edit to more GPUs than exist: %v", err)
	}
	if _, err := gpusched(t, "bookings", "end", id); err == nil || !strings.Contains(err.Error(), "cancel it instead") ||
		strings.Count(err.Error(), "booking "+id) != 1 {
		t.Fatalf("end an upcoming booking: %v; want it said once which booking", err)
	}
	if _, err := gpusched(t, "bookings", "edit", id, "--note", strings.Repeat("n", 600)); err == nil || !strings.HasPrefix(err.Error(), "--note: ") {
		t.Fatalf("a note too long: %v; want the flag named, not the API's field", err)
	}

	out, err = gpusched(t, "bookings", "series", "-g", "1", "--first", day, "--last", day, "--start", "20:00", "--end", "22:00", "--tz", "UTC", "--note", "demo")
	if err != nil || !strings.Contains(out, "1 occurrence\n") || !strings.Contains(out, "22:00 UTC") {
		t.Fatalf("series: %q %v", out, err)
	}
	sid := strings.TrimSuffix(strings.Fields(out)[1], ":")
	if out, err = gpusched(t, "bookings", "series", "cancel", sid); err != nil || !strings.Contains(out, "1 occurrence canceled") {
		t.Fatalf("series cancel: %q %v", out, err)
	}
	if _, err := gpusched(t, "bookings", "series", "--first", day, "--last", day, "--days", "funday"); err == nil {
		t.Fatal("a bad --days is accepted")
	}

	sheet := filepath.Join(t.TempDir(), "sheet.csv")
	csv := fmt.Sprintf("email,gpus,gpu_model,node,gpu_ids,start,end,note\n%s,1,H100,,,%s 15:00,%s 16:00,from the sheet\n%s,,,gpu-a,7,%s 15:00,%s 16:00,\n",
		admin.Email, day, day, admin.Email, day, day)
	if err := os.WriteFile(sheet, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	// A dry run fails as the import itself would, and says so.
	out, err = gpusched(t, "bookings", "import", sheet, "--dry-run")
	if err == nil || !strings.Contains(err.Error(), "the import would be refused: 1 of 2 rows are invalid") ||
		!strings.Contains(out, "would create") || !strings.Contains(out, "unknown GPU 7 on gpu-a") || !strings.Contains(out, "dry run: 1 to create") {
		t.Fatalf("import --dry-run: %q %v", out, err)
	}
	if out, err = gpusched(t, "bookings", "import", sheet, "--dry-run", "--skip-invalid"); err != nil || !strings.Contains(out, "dry run: 1 to create") {
		t.Fatalf("import --dry-run --skip-invalid: %q %v", out, err)
	}
	if _, err := gpusched(t, "bookings", "import", sheet); err == nil || !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("import with a bad row: %v", err)
	}
	if out, err = gpusched(t, "bookings", "import", sheet, "--skip-invalid"); err != nil || !strings.Contains(out, "imported 1 booking (0 already there, 1 invalid row skipped)") {
		t.Fatalf("import --skip-invalid: %q %v", out, err)
	}
	out, err = gpusched(t, "bookings", "export", "--format", "csv")
	if err != nil || !strings.Contains(out, day+" 15:00,"+day+" 16:00,from the sheet") || !strings.Contains(out, ",longer") {
		t.Fatalf("export: %q %v", out, err)
	}
}
