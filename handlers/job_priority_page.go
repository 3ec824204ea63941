package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// JobPriorityPage handles POST /jobs/{id}/priority from the queue and job
// pages (CSRF checked by the page group), with the form field priority
// (low, normal, high; critical for admins). htmx gets the refreshed queue
// tables; a plain form is sent back where it came from.
func (h *Handlers) JobPriorityPage(c echo.Context) error {
	id, err := jobID(c)
	if err != nil {
		return err
	}
	u := userOf(c)
	asked, err := api.ParsePriority(c.FormValue("priority"))
	if err != nil {
		return invalid("priority", "%s", err)
	}
	p, err := priorityFor(asked, u)
	if err != nil {
		return err
	}
	if _, err := h.setPriority(c, u, id, p); err != nil {
		return err
	}
	if c.FormValue("return") != "job" && c.Request().Header.Get("HX-Request") == "true" {
		return h.QueueFragment(c)
	}
	return c.Redirect(http.StatusSeeOther, pageBack(c, id))
}

// pageBack is where a plain form about job id returns: the job's page
// (return=job) or the queue, with its filters.
func pageBack(c echo.Context, id int64) string {
	if c.FormValue("return") == "job" {
		return fmt.Sprintf("/jobs/%d", id)
	}
	return "/queue"
}
