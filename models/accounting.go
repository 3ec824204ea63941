package models

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// Accounting groupings: one row per user, or per team.
const (
	AccountByUser = "user"
	AccountByTeam = "team"
)

// AccountingQuery says what an accounting report covers and who sees it.
type AccountingQuery struct {
	From, To time.Time
	By       string // AccountByUser or AccountByTeam
	// OnlyUser > 0 keeps that user's row alone (by user); OnlyTeam > 0
	// that team's (by team); -1 keeps none.
	OnlyUser, OnlyTeam int64
	Threshold          int // the idle policy's utilization threshold
	Cost               scheduler.CostPolicy
}

// AccountModel is GPU time on one GPU model and what it costs.
type AccountModel struct {
	Model    string
	GPUHours float64
	Rate     float64
	Priced   bool // a rate applies
	Cost     float64
}

// AccountRow is one user's or team's figures over the period.
type AccountRow struct {
	ID    int64  // the user's or team's; 0: no team
	Name  string // the user's name (else email), or the team's ("(no team)")
	Email string // by user
	Team  string // by user: their team
	// GPUHours is GPU time used (the usage page's GPU-hours); BookedIdle
	// the GPU-hours booked and not used; Reclaimed the idle GPU-hours the
	// idle policy ended; Cost the GPU-hours priced at the rates.
	GPUHours, BookedIdleHours, ReclaimedHours, Cost float64
	Models                                          []AccountModel
}

// AccountingReport is the figures of every row, and their total.
type AccountingReport struct {
	Rows  []AccountRow
	Total AccountRow
	// Unpriced are the GPU models used that no rate prices.
	Unpriced []string
}

// Accounting reads GPU time used, booked but idle, and reclaimed over
// [q.From, q.To) up to now, priced at q.Cost, per user or team, from one
// snapshot of the database.
func Accounting(ctx context.Context, db *DB, q AccountingQuery, now time.Time) (AccountingReport, error) {
	var (
		used             []ModelUse
		idle, reclaimed  []PrincipalHours
		userRows         []accountUser
		teamNames        map[int64]string
		err              error
		readOnlySnapshot = `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`
	)
	err = db.InTx(ctx, func(ctx context.Context, tx *Tx) error {
		if _, err := tx.ExecContext(ctx, readOnlySnapshot); err != nil {
			return fmt.Errorf("models: accounting: %w", err)
		}
		if used, err = gpuTimeByModel(ctx, tx, q.From, q.To, now); err != nil {
			return err
		}
		if idle, err = bookedIdleHours(ctx, tx, q.From, q.To, now, q.Threshold); err != nil {
			return err
		}
		if reclaimed, err = reclaimedHours(ctx, tx, q.From, q.To); err != nil {
			return err
		}
		userRows, teamNames, err = accountNames(ctx, tx)
		return err
	})
	if err != nil {
		return AccountingReport{}, err
	}
	return buildReport(q, used, idle, reclaimed, userRows, teamNames), nil
}

type accountUser struct {
	ID     int64  `bun:"id"`
	Email  string `bun:"email"`
	Name   string `bun:"name"`
	TeamID int64  `bun:"team_id"`
}

// accountNames reads every user (name, email, team) and team name.
func accountNames(ctx context.Context, db bun.IDB) ([]accountUser, map[int64]string, error) {
	var users []accountUser
	if err := db.NewRaw(`SELECT id, email, name, coalesce(team_id, 0) AS team_id FROM users`).Scan(ctx, &users); err != nil {
		return nil, nil, fmt.Errorf("models: accounting names: %w", err)
	}
	var teams []label
	if err := db.NewRaw(`SELECT id, name AS label FROM teams`).Scan(ctx, &teams); err != nil {
		return nil, nil, fmt.Errorf("models: accounting teams: %w", err)
	}
	names := map[int64]string{0: "(no team)"}
	for _, t := range teams {
		names[t.ID] = t.Label
	}
	return users, names, nil
}

// buildReport sums the figures into rows by user or team, prices them and
// keeps the rows q lets its reader see.
func buildReport(q AccountingQuery, used []ModelUse, idle, reclaimed []PrincipalHours, users []accountUser, teams map[int64]string) AccountingReport {
	byUser := make(map[int64]accountUser, len(users))
	for _, u := range users {
		byUser[u.ID] = u
	}
	rows := map[int64]*AccountRow{}
	row := func(userID, teamID int64) *AccountRow {
		id := teamID
		if q.By == AccountByUser {
			id = userID
		}
		if r, ok := rows[id]; ok {
			return r
		}
		r := &AccountRow{ID: id, Name: teams[id]}
		if r.Name == "" {
			r.Name = fmt.Sprintf("team %d", id)
		}
		if q.By == AccountByUser {
			u := byUser[userID]
			r.Name, r.Email, r.Team = cmp.Or(u.Name, u.Email), u.Email, teams[u.TeamID]
		}
		rows[id] = r
		return r
	}
	for _, u := range used {
		r := row(u.UserID, u.TeamID)
		h := u.GPUSeconds / 3600
		r.GPUHours += h
		i := slices.IndexFunc(r.Models, func(m AccountModel) bool { return m.Model == u.Model })
		if i < 0 {
			r.Models = append(r.Models, AccountModel{Model: u.Model})
			i = len(r.Models) - 1
		}
		r.Models[i].GPUHours += h
	}
	for _, p := range idle {
		row(p.UserID, p.TeamID).BookedIdleHours += p.Hours
	}
	for _, p := range reclaimed {
		row(p.UserID, p.TeamID).ReclaimedHours += p.Hours
	}
	var out AccountingReport
	unpriced := map[string]bool{}
	for id, r := range rows {
		if (q.By == AccountByUser && q.OnlyUser != 0 && id != q.OnlyUser) || (q.By == AccountByTeam && q.OnlyTeam != 0 && id != q.OnlyTeam) {
			continue
		}
		slices.SortFunc(r.Models, func(a, b AccountModel) int { return cmp.Compare(a.Model, b.Model) })
		for i := range r.Models {
			m := &r.Models[i]
			if m.Rate, _, m.Priced = q.Cost.Rate(m.Model); m.Priced {
				m.Cost = m.GPUHours * m.Rate
				r.Cost += m.Cost
			} else if m.GPUHours > 0 {
				unpriced[m.Model] = true
			}
		}
		out.Rows = append(out.Rows, *r)
	}
	slices.SortFunc(out.Rows, func(a, b AccountRow) int {
		return cmp.Or(cmp.Compare(b.GPUHours, a.GPUHours), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	out.Total.Name = "Total"
	for _, r := range out.Rows {
		out.Total.GPUHours += r.GPUHours
		out.Total.BookedIdleHours += r.BookedIdleHours
		out.Total.ReclaimedHours += r.ReclaimedHours
		out.Total.Cost += r.Cost
	}
	for m := range unpriced {
		out.Unpriced = append(out.Unpriced, m)
	}
	slices.Sort(out.Unpriced)
	return out
}
