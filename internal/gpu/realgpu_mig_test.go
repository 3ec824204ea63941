//go:build cgo

package gpu

import (
	"context"
	"fmt"
	"strings"
)

// realMIG reads MIG mode, the profiles (checking that our names are
// NVML's own) and, on GPUs in MIG mode, the slices and their telemetry.
func realMIG(n *NVML, e proofEnv) (string, error) {
	ctx := context.Background()
	rep, err := n.Inspect(ctx)
	if err != nil {
		return "", err
	}
	var parts []string
	for i, g := range rep.GPUs {
		if g.MIG == nil {
			parts = append(parts, fmt.Sprintf("GPU %d has no MIG", g.Index))
			continue
		}
		state := map[bool]string{true: "on", false: "off"}[*g.MIG]
		n.mu.Lock()
		profiles := n.profilesOf(i)
		var wrong []string
		for _, p := range profiles {
			if own := e.ownName(n.handles[i], p.ID); own != "" && own != p.Name {
				wrong = append(wrong, fmt.Sprintf("%s (NVML: %s)", p.Name, own))
			}
		}
		n.mu.Unlock()
		if len(wrong) > 0 {
			return "", fmt.Errorf("GPU %d: profile names differ from NVML's: %s", g.Index, strings.Join(wrong, ", "))
		}
		var names []string
		for _, p := range profiles {
			names = append(names, p.Name)
		}
		parts = append(parts, fmt.Sprintf("GPU %d MIG %s, profiles [%s]", g.Index, state, strings.Join(names, " ")))
	}
	devs, err := n.Schedulable(ctx)
	if err != nil {
		return "", err
	}
	samples, err := n.SampleMIG(ctx)
	if err != nil {
		return "", err
	}
	slicesSeen := 0
	for _, d := range devs {
		if d.MIG == nil {
			continue
		}
		slicesSeen++
		if !strings.HasPrefix(d.UUID, "MIG-") || d.MemoryMiB <= 0 || d.MIG.Slices <= 0 {
			return "", fmt.Errorf("MIG device %+v (%+v)", d, *d.MIG)
		}
	}
	if len(samples) != slicesSeen {
		return "", fmt.Errorf("%d MIG devices but %d MIG samples", slicesSeen, len(samples))
	}
	return fmt.Sprintf("%s; %d schedulable devices, %d of them MIG", strings.Join(parts, "; "), len(devs), slicesSeen), nil
}

// cString reads a NUL-terminated C string.
func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// realMIGLayout applies GPUSCHED_PROOF_MIG_LAYOUT and puts the GPUs back.
func realMIGLayout(n *NVML, e proofEnv) (string, error) {
	text := e.layout
	if text == "" {
		return "", errSkip{"set GPUSCHED_PROOF_MIG_LAYOUT (e.g. \"gpu 0: 7x1g.10gb\") to split free GPUs and put them back; needs root"}
	}
	ctx := context.Background()
	l, err := ParseLayout(text)
	if err != nil {
		return "", err
	}
	before, err := n.Schedulable(ctx)
	if err != nil {
		return "", err
	}
	back := Layout{}
	for _, d := range before {
		if d.MIG != nil {
			back[d.Index] = append(back[d.Index], d.MIG.Profile)
		}
	}
	changes, err := n.ApplyLayout(ctx, l, false)
	var did []string
	for _, c := range changes {
		did = append(did, c.String())
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.Join(did, "; "))
	}
	after, _ := n.Schedulable(ctx)
	got := layoutOfDevices(after)
	if _, err := n.ApplyLayout(ctx, back, false); err != nil {
		return "", fmt.Errorf("putting the GPUs back as %q: %w", back.String(), err)
	}
	for idx, want := range l {
		if !sameDevices(got[idx], want) {
			return "", fmt.Errorf("GPU %d offers %s after the layout, want %s (%s)", idx, slicesText(got[idx]), slicesText(want), strings.Join(did, "; "))
		}
	}
	return fmt.Sprintf("%s; put back as %q", strings.Join(did, "; "), back.String()), nil
}

// layoutOfDevices is what each GPU offers: its MIG devices' profiles, nil
// when whole.
func layoutOfDevices(devs []Device) Layout {
	out := Layout{}
	for _, d := range devs {
		if d.MIG != nil {
			out[d.Index] = append(out[d.Index], d.MIG.Profile)
		}
	}
	return out
}
