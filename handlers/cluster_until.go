package handlers

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/calgrid"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// untilHorizon is how far ahead the overview looks for what takes a free GPU.
const untilHorizon = 7 * 24 * time.Hour

// next24Shown caps the overview's "Next 24 h" strip.
const next24Shown = 12

// withUntil says on each GPU tile until when it stays as it is (a running
// job's expected end, a booking's end, or the booking that takes a free
// GPU next) and lists what starts and ends in the next 24 hours: one
// query whatever the cluster's size (the jobs come with the GPUs).
func (h *Handlers) withUntil(ctx context.Context, v *views.Cluster, nodes []models.NodeStatus, u *models.User, now time.Time, loc *time.Location) error {
	bookings, err := models.ListBookings(ctx, h.DB.Bun, now, now.Add(untilHorizon), 0)
	if err != nil {
		return err
	}
	var jobs []models.RunningJobWindow
	seen := map[int64]int{}
	var gpus []calgrid.GPU
	for _, n := range nodes {
		for _, g := range n.GPUs {
			gpus = append(gpus, calgrid.GPU{ID: g.ID, NodeID: n.ID, Node: n.Name, Index: g.Index, Model: g.Model})
			if g.JobID == nil || g.JobStartedAt == nil {
				continue
			}
			if k, ok := seen[*g.JobID]; ok {
				jobs[k].GPUIDs = append(jobs[k].GPUIDs, g.ID)
				continue
			}
			seen[*g.JobID] = len(jobs)
			w := models.RunningJobWindow{JobID: *g.JobID, StartedAt: *g.JobStartedAt, EstimatedDurationS: g.JobEstimatedDurationS, GPUIDs: []int64{g.ID}}
			if g.JobName != nil {
				w.Name = *g.JobName
			}
			if g.HolderEmail != nil {
				w.OwnerEmail = *g.HolderEmail
			}
			jobs = append(jobs, w)
		}
	}
	items := make([]calgrid.Item, 0, len(bookings))
	for i := range bookings {
		items = append(items, bookingItem(u, &bookings[i], now))
	}
	onGPU := calgrid.Assign(gpus, items)
	jobEnd := make(map[int64]*models.RunningJobWindow, len(jobs))
	for i := range jobs {
		jobEnd[jobs[i].JobID] = &jobs[i]
	}
	for i := range nodes {
		if i >= len(v.Nodes) {
			break
		}
		for j := range nodes[i].GPUs {
			if j >= len(v.Nodes[i].GPUs) {
				break
			}
			g, vg := &nodes[i].GPUs[j], &v.Nodes[i].GPUs[j]
			vg.Until = untilText(vg, g, onGPU[g.ID], jobEnd, now, loc)
		}
	}
	v.Next24 = next24(bookings, jobs, now)
	return nil
}

// untilText is a tile's "until when".
func untilText(vg *views.GPU, g *models.GPUStatus, items []*calgrid.Item, jobs map[int64]*models.RunningJobWindow, now time.Time, loc *time.Location) string {
	switch vg.State {
	case "allocated":
		if g.JobID == nil || jobs[*g.JobID] == nil {
			return ""
		}
		end, ok := jobs[*g.JobID].ExpectedEnd()
		switch {
		case !ok:
			return "no expected end"
		case !end.After(now):
			return "expected to end by now (" + localtime.When(end, now, loc) + ")"
		}
		return "until ~" + localtime.When(end, now, loc) + " (" + localtime.Relative(end, now) + ")"
	case "booked", "held":
		for _, it := range items {
			if !it.Start.After(now) && it.End.After(now) {
				return "until " + localtime.When(it.End, now, loc) + " (" + localtime.Relative(it.End, now) + ")"
			}
		}
	case "free":
		var next *calgrid.Item
		for _, it := range items {
			if it.Start.After(now) && (next == nil || it.Start.Before(next.Start)) {
				next = it
			}
		}
		if next == nil {
			return "free for the next 7 days"
		}
		what := "booking"
		if next.Kind == calgrid.KindHold {
			what = "hold"
		}
		return fmt.Sprintf("free until %s (%s's %s)", localtime.When(next.Start, now, loc), next.Owner, what)
	}
	return ""
}

// next24 is what starts and ends within a day of now, by time.
func next24(bookings []models.BookingRow, jobs []models.RunningJobWindow, now time.Time) []views.SoonEvent {
	soon := func(t time.Time) bool { return t.After(now) && !t.After(now.Add(24*time.Hour)) }
	out := []views.SoonEvent{}
	for i := range bookings {
		b := &bookings[i]
		if b.Kind != models.BookingKindBooking {
			continue
		}
		href := fmt.Sprintf("/bookings/%d", b.ID)
		what := fmt.Sprintf("%s's booking of %s", shortName(b.OwnerEmail), words.Count(b.GPUCount, "GPU"))
		if b.GPUShare > 0 {
			what = fmt.Sprintf("%s's booking of %s of a shared GPU", shortName(b.OwnerEmail), calgrid.ShareText(b.GPUShare))
		}
		if b.GPUCount != 1 {
			what += "s"
		}
		if soon(b.StartsAt) {
			out = append(out, views.SoonEvent{At: b.StartsAt, Kind: "booking", What: what + " starts", Href: href})
		}
		if soon(b.EndsAt) {
			out = append(out, views.SoonEvent{At: b.EndsAt, Kind: "booking", Ends: true, What: what + " ends", Href: href})
		}
	}
	for i := range jobs {
		j := &jobs[i]
		if end, ok := j.ExpectedEnd(); ok && soon(end) {
			name := j.Name
			if name == "" {
				name = fmt.Sprintf("#%d", j.JobID)
			}
			out = append(out, views.SoonEvent{At: end, Kind: "job", Ends: true,
				What: fmt.Sprintf("%s's job %s (%s) should end", shortName(j.OwnerEmail), name, words.Count(len(j.GPUIDs), "GPU")), Href: fmt.Sprintf("/jobs/%d", j.JobID)})
		}
	}
	slices.SortStableFunc(out, func(a, b views.SoonEvent) int { return a.At.Compare(b.At) })
	if len(out) > next24Shown {
		out = out[:next24Shown]
	}
	return out
}
