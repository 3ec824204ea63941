package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// loadPrincipals fills the snapshot's users and teams: name, share, cap and
// usage: the GPU-seconds of their allocations, decayed with halfLife
// (scheduler.GPUTime over readHeld's intervals).
func loadPrincipals(ctx context.Context, db bun.IDB, s *scheduler.Snapshot, now time.Time, halfLife time.Duration) error {
	users, err := ListUsers(ctx, db)
	if err != nil {
		return err
	}
	var teams []Team
	if err := db.NewSelect().Model(&teams).OrderExpr("id").Scan(ctx); err != nil {
		return fmt.Errorf("models: snapshot teams: %w", err)
	}
	for _, t := range teams {
		p := scheduler.Principal{Name: t.Name, Share: t.FairShareWeight}
		if t.GPUCap != nil {
			p.GPUCap = *t.GPUCap
		}
		s.Teams[t.ID] = p
	}
	for _, u := range users {
		name := u.Name
		if name == "" {
			name, _, _ = strings.Cut(u.Email, "@")
		}
		p := scheduler.Principal{Name: name, Share: u.FairShareWeight}
		if u.GPUCap != nil {
			p.GPUCap = *u.GPUCap
		}
		s.Users[u.ID] = p
	}
	w := fairShareWindow(now, halfLife)
	from := w.From
	if lost := now.Add(-LostWindow); !from.IsZero() && lost.Before(from) {
		from = lost // the lost-share cap reads the same intervals (snapshot_lost.go)
	}
	held, err := readHeld(ctx, db, from, now)
	if err != nil {
		return fmt.Errorf("models: snapshot usage: %w", err)
	}
	scheduler.ChargeUsage(s, held, w)
	s.Lost.HeldGPUSeconds = heldWithin(held, now.Add(-LostWindow), now)
	return nil
}

// heldWithin is the GPU-seconds held in [from, now), undecayed.
func heldWithin(held []scheduler.Held, from, now time.Time) float64 {
	var sum float64
	w := scheduler.UsageWindow{From: from, Now: now}
	for _, h := range held {
		sum += scheduler.GPUTime(h, w)
	}
	return sum
}
