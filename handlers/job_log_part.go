package handlers

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// logPart reads the part of a multi-node job's output a page asks for
// (?part=N, by node rank; default 0, the first node), as gpusched logs
// --part does.
func logPart(c echo.Context) (int, error) {
	s := c.QueryParam("part")
	if s == "" {
		return 0, nil
	}
	part, err := strconv.Atoi(s)
	if err != nil || part < 0 {
		return 0, invalid("part", "must be a number ≥ 0: a multi-node job's node rank (0 = the first node)")
	}
	return part, nil
}

// partsOf is how many parts j's output has: its newest run's (nodes, the
// names of its parts' nodes when it has several; ran, whether it has a
// run), else its shape's; 0 when not known yet (a job that may span nodes
// and has not run).
func partsOf(j *models.Job, nodes []string, ran bool) int {
	switch {
	case len(nodes) > 1:
		return len(nodes)
	case j.Nodes > 1 && !ran:
		return j.Nodes
	case j.AllowMultiNode && !ran:
		return 0
	}
	return 1
}

// checkPart refuses a part j's output does not have.
func checkPart(j *models.Job, part, parts int) error {
	switch {
	case parts == 0 || part < parts:
		return nil
	case parts == 1:
		return invalid("part", "job %d has no part %d: it runs on one node (part 0)", j.ID, part)
	}
	return invalid("part", "job %d runs on %s (parts 0–%d); it has no part %d", j.ID, words.Count(parts, "node"), parts-1, part)
}
