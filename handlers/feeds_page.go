package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// feedNames names the feed scopes for people.
var feedNames = map[string]string{models.FeedMine: "My bookings, holds and running jobs", models.FeedTeam: "Everyone's bookings (team)"}

// FeedsPage handles GET /settings/feeds: the user's calendar feeds.
func (h *Handlers) FeedsPage(c echo.Context) error {
	f, err := h.feeds(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.FeedsPage(h.Page(c, "Calendar feeds", "settings"), f))
}

// feeds builds the page's model, times in the viewer's zone.
func (h *Handlers) feeds(c echo.Context) (views.Feeds, error) {
	live, err := models.UserFeeds(c.Request().Context(), h.DB.Bun, userOf(c).ID)
	if err != nil {
		return views.Feeds{}, err
	}
	loc := viewerZone(c)
	f := views.Feeds{CSRF: csrfToken(c), Export: "/bookings/export"}
	for _, scope := range []string{models.FeedMine, models.FeedTeam} {
		r := views.FeedRow{Scope: scope, Name: feedNames[scope]}
		for _, l := range live {
			if l.Scope == scope {
				r.Live, r.Prefix, r.Created = true, l.Prefix, l.CreatedAt.In(loc).Format("Mon 2 Jan 2006 15:04 MST")
			}
		}
		f.List = append(f.List, r)
	}
	return f, nil
}

// FeedRegeneratePage handles POST /settings/feeds/{scope}/regenerate: a
// new secret address (the old one stops working), shown once.
func (h *Handlers) FeedRegeneratePage(c echo.Context) error {
	scope := c.Param("scope")
	if _, ok := feedNames[scope]; !ok {
		return echo.ErrNotFound
	}
	var token string
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		var err error
		token, _, err = models.RegenerateFeed(ctx, tx, userOf(c).ID, scope, h.Now())
		return err
	})
	if err != nil {
		return err
	}
	f, err := h.feeds(c)
	if err != nil {
		return err
	}
	f.NewURL, f.NewName = baseURL(c)+"/calendar/"+token+".ics", feedNames[scope]
	return render(c, http.StatusCreated, views.FeedsPage(h.Page(c, "Calendar feeds", "settings"), f))
}

// FeedRevokePage handles POST /settings/feeds/{scope}/revoke: the address
// stops working at once.
func (h *Handlers) FeedRevokePage(c echo.Context) error {
	scope := c.Param("scope")
	if _, ok := feedNames[scope]; !ok {
		return echo.ErrNotFound
	}
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		return models.RevokeFeed(ctx, tx, userOf(c).ID, scope, h.Now())
	})
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/settings/feeds")
}
