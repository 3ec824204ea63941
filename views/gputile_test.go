package views

import (
	"strings"
	"testing"
	"time"
)

// A tile says why a GPU is unavailable, who books or holds it, and whether
// its holder left it idle; a plain tile says none of that.
func TestGPUTileFlags(t *testing.T) {
	t.Parallel()
	base := GPU{Index: 3, UUID: "GPU-x", Model: "NVIDIA H100 80GB HBM3", MemoryTotalMiB: 81559, Health: "ok"}
	tests := map[string]struct {
		gpu      func(g GPU) GPU
		want     []string
		wantNone []string
	}{
		"free": {
			gpu:      func(g GPU) GPU { g.State = "free"; return g },
			want:     []string{`data-state="free"`, `>free</span>`},
			wantNone: []string{`data-field="condition"`, `data-field="idle"`},
		},
		"drained": {
			gpu:  func(g GPU) GPU { g.State, g.Condition = "unavailable", "drained"; return g },
			want: []string{`data-state="unavailable"`, `<span class="flag flag-condition" data-field="condition">drained</span>`},
		},
		"node down": {
			gpu:  func(g GPU) GPU { g.State, g.Condition = "unavailable", "node down"; return g },
			want: []string{`data-field="condition">node down</span>`},
		},
		"idle allocation": {
			gpu: func(g GPU) GPU {
				g.State, g.Holder, g.JobID, g.JobName = "allocated", "ana", 7, "notebook"
				g.IdleSince = time.Date(2026, 11, 2, 8, 30, 0, 0, time.UTC)
				return g
			},
			want: []string{`data-field="idle"`, `near 0% since 08:30 UTC`, `>notebook</a>`},
		},
		"booked": {
			gpu:      func(g GPU) GPU { g.State, g.ReservedBy = "booked", "bo"; return g },
			want:     []string{`data-state="booked"`, `Booked by bo`},
			wantNone: []string{`data-field="idle"`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			html := render(t, GPUTile(tc.gpu(base)))
			for _, w := range tc.want {
				if !strings.Contains(html, w) {
					t.Errorf("tile lacks %q:\n%s", w, html)
				}
			}
			for _, w := range tc.wantNone {
				if strings.Contains(html, w) {
					t.Errorf("tile has %q:\n%s", w, html)
				}
			}
		})
	}
}
