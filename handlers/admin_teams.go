package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// AdminTeams handles GET /admin/teams: teams with weight, GPU cap and size.
func (h *Handlers) AdminTeams(c echo.Context) error {
	return h.renderAdminTeams(c, http.StatusOK, "")
}

func (h *Handlers) renderAdminTeams(c echo.Context, status int, msg string) error {
	ctx := c.Request().Context()
	teams, err := models.ListTeams(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	members, err := models.TeamMemberCounts(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	a := views.AdminTeams{Error: msg}
	for _, t := range teams {
		row := views.AdminTeam{ID: t.ID, Name: t.Name, Weight: strconv.FormatFloat(t.FairShareWeight, 'f', -1, 64), Members: members[t.ID]}
		if t.GPUCap != nil {
			row.GPUCap = strconv.Itoa(*t.GPUCap)
		}
		a.Teams = append(a.Teams, row)
	}
	return render(c, status, views.AdminTeamsPage(h.Page(c, "Teams", "admin"), a))
}

// teamForm reads and checks the weight and GPU cap of a team form.
func teamForm(c echo.Context) (weight float64, gpuCap *int, msg string) {
	weight = 1
	if s := c.FormValue("weight"); s != "" {
		w, err := strconv.ParseFloat(s, 64)
		if err != nil || w <= 0 || w > 1e6 {
			return 0, nil, "The weight must be a positive number, like 1 or 2.5."
		}
		weight = w
	}
	if s := c.FormValue("gpu_cap"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0, nil, "The GPU cap must be a whole number ≥ 0, or empty for none."
		}
		gpuCap = &n
	}
	return weight, gpuCap, ""
}
