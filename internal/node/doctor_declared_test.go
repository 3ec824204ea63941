package node_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Without --mig-layout, node doctor takes the layout an admin declared on
// the server and shows it against what the GPUs have: the declared layout
// and the agent's last report, then each GPU that differs.
func TestDoctorShowsDeclaredMIGLayout(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, n := s.NodeToken(t, "doc-mig")
	_, u := s.UserToken(t, models.RoleAdmin)
	layout := "gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb"
	ctx := context.Background()
	if err := models.SetNodeMIGLayout(ctx, s.DB.Bun, n.ID, &layout, u.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := models.SaveMIGLayoutReport(ctx, s.DB.Bun, n.ID, "gpu 4: 2×3g.40gb waits: a job runs on it", time.Now()); err != nil {
		t.Fatal(err)
	}
	spec, _ := gpu.ParseFakeSpec("1x8:H100-80GB")
	spec, err := spec.WithMIG("0-3:7x1g.10gb")
	if err != nil {
		t.Fatal(err)
	}
	d := &node.Doctor{GPUs: gpu.NewFake("mig", spec), StateDir: t.TempDir(), Client: apiclient.New(s.URL, tok)}
	var got []string
	for _, c := range d.Run(ctx) {
		if strings.HasPrefix(c.Name, "mig") {
			got = append(got, fmt.Sprintf("%s %s: %s", c.Status, c.Name, c.Detail))
		}
	}
	want := []string{
		"OK mig layout: declared on the server: gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb; the agent last reported: gpu 4: 2×3g.40gb waits: a job runs on it",
		"OK mig: MIG layout gpu 0-3: 7×1g.10gb: 28 MIG devices offered as slices (jobs ask for them by profile, e.g. --gpu-type 1g.10gb), 4 GPUs whole",
		"WARN mig layout: gpu 4: would apply (had whole, want 2×3g.40gb)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MIG lines (-want +got):\n%s", diff)
	}
}
