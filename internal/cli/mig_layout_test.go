package cli

import (
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// gpusched mig-layout against a real server: an admin declares a layout
// (x read as ×, written back canonically), a layout the GPUs cannot take
// is refused naming the problem, --none clears it.
func TestMIGLayoutCommand(t *testing.T) {
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-m")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"m","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559},{"index":1,"uuid":"G1","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleAdmin)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	out, err := gpusched(t, "mig-layout", "gpu-m", "gpu 0-1: 7x1g.10gb")
	if err != nil || !strings.Contains(out, "gpu-m: MIG layout gpu 0-1: 7×1g.10gb;") {
		t.Fatalf("declare: %q %v", out, err)
	}
	if _, err := gpusched(t, "mig-layout", "gpu-m", "gpu 1: 8x1g.10gb"); err == nil || !strings.Contains(err.Error(), "at most 7 fit") {
		t.Fatalf("8 slices: %v", err)
	}
	if out, err := gpusched(t, "mig-layout", "gpu-m", "--none"); err != nil || !strings.Contains(out, "no MIG layout declared") {
		t.Fatalf("--none: %q %v", out, err)
	}
}
