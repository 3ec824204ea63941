package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// QueueSubmitPage handles POST /queue, the queue page's submit form (CSRF
// checked by the page group). htmx gets the form card back with the
// outcome (the job itself reaches the tables through SSE); a plain form is
// sent to the new job's page, or gets the queue page again with the
// refusal and its status.
func (h *Handlers) QueueSubmitPage(c echo.Context) error {
	u := userOf(c)
	ctx := c.Request().Context()
	filter, _, err := queueFilter(c, u)
	if err != nil {
		return err
	}
	form, err := h.submitForm(ctx, u, filter)
	if err != nil {
		return err
	}
	form.CSRF = csrfToken(c)
	form.Name, form.GPUModel, form.Command = c.FormValue("name"), c.FormValue("gpu_model"), c.FormValue("command")
	form.Duration, form.Priority, form.Executor = c.FormValue("estimated_duration"), c.FormValue("priority"), c.FormValue("executor")
	form.TimeLimit, form.Array, form.After = c.FormValue("time_limit"), c.FormValue("array"), c.FormValue("after")
	job, err := h.submitFromForm(ctx, c, u, &form)
	htmx := c.Request().Header.Get("HX-Request") == "true"
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr):
		form.Error = apiErr.Message
		if htmx {
			return render(c, http.StatusOK, views.SubmitJobForm(form))
		}
		q, qerr := h.queueView(c)
		if qerr != nil {
			return qerr
		}
		q.Form = form
		return render(c, apiErr.Status, views.QueuePage(h.Page(c, "Queue", "queue"), q))
	case err != nil:
		return err
	}
	h.log(c).Info("job submitted from the queue page", "user", u.Email, "job", job.ID)
	if !htmx {
		return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/jobs/%d", job.ID))
	}
	done, err := h.submitForm(ctx, u, filter)
	if err != nil {
		return err
	}
	done.DoneID = job.ID
	done.CSRF = form.CSRF
	return render(c, http.StatusOK, views.SubmitJobForm(done))
}

// submitFromForm validates the form like the API's submission and queues the
// job, signalling the scheduler.
func (h *Handlers) submitFromForm(ctx context.Context, c echo.Context, u *models.User, f *views.SubmitForm) (*models.Job, error) {
	n, err := strconv.Atoi(strings.TrimSpace(c.FormValue("gpu_count")))
	if err != nil {
		return nil, invalid("GPUs", "%q is not a number", c.FormValue("gpu_count"))
	}
	f.GPUCount = n
	spec := api.SubmitRequest{Name: f.Name, GPUCount: &n, GPUModel: f.GPUModel, Command: strings.TrimSpace(f.Command), Executor: f.Executor}
	if p := strings.TrimSpace(f.Priority); p != "" {
		if spec.Priority, err = api.ParsePriority(p); err != nil {
			return nil, invalid("priority", "%s", err)
		}
	}
	if d := strings.TrimSpace(f.Duration); d != "" {
		if spec.EstimatedDuration, err = api.ParseSeconds(d); err != nil {
			return nil, invalid("estimated_duration", "%s", err)
		}
	}
	if d := strings.TrimSpace(f.TimeLimit); d != "" {
		if spec.TimeLimit, err = api.ParseTimeLimit(d); err != nil {
			return nil, invalid("time_limit", "%s", err)
		}
	}
	spec.Array = strings.TrimSpace(f.Array)
	if spec.After, err = formAfter(f.After); err != nil {
		return nil, err
	}
	cp, err := h.capacity(ctx)
	if err != nil {
		return nil, err
	}
	job, err := jobFrom(&spec, u, cp, h.CanRun)
	if err != nil {
		return nil, err
	}
	if err := h.applyTimeLimit(ctx, job, spec.TimeLimit); err != nil {
		return nil, err
	}
	deps, err := dependenciesFrom(spec.After, job.Executor)
	if err != nil {
		return nil, err
	}
	array, err := arrayFrom(spec.Array, job.Executor)
	if err != nil {
		return nil, err
	}
	if len(deps) > 0 || array != nil {
		err = h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			job.SubmittedAt = h.Now()
			_, _, err := createQueued(ctx, tx, job, deps, array)
			return err
		})
	} else {
		err = h.jobBatch.Create(ctx, h.DB.Pool, job, h.Now())
	}
	if err != nil {
		return nil, fmt.Errorf("handlers: submit from the page: %w", err)
	}
	h.Signals.Signal(models.ChannelJobs, fmt.Sprint(job.ID))
	return job, nil
}

// submitForm is an empty submit form: one GPU, normal priority, the
// cluster's GPU types to choose from.
func (h *Handlers) submitForm(ctx context.Context, u *models.User, filter views.QueueFilter) (views.SubmitForm, error) {
	cp, err := h.capacity(ctx)
	if err != nil {
		return views.SubmitForm{}, err
	}
	f := views.SubmitForm{GPUCount: 1, Priority: "normal", Executor: models.ExecutorNode, Admin: u.IsAdmin(), Filter: filter}
	for m := range cp.Models {
		f.Models = append(f.Models, m)
	}
	slices.Sort(f.Models)
	return f, nil
}

// formAfter reads the form's "after" field: conditions separated by spaces,
// each gpusched's (ok:ID[,ID], notok:ID, any:ID, ID) or Slurm's
// (afterok:ID[:ID], afterany:…, afternotok:…, singleton).
func formAfter(text string) ([]api.Dependency, error) {
	var out []api.Dependency
	for _, part := range strings.Fields(text) {
		parse := api.ParseAfter
		if strings.HasPrefix(part, "after") || strings.HasPrefix(part, "singleton") {
			parse = api.ParseSlurmDependency
		}
		ds, err := parse(part)
		if err != nil {
			return nil, invalid("after", "%s", err)
		}
		out = append(out, ds...)
	}
	return out, nil
}
