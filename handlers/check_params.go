package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// CheckParams is middleware that refuses a request whose path parameters,
// query parameters or URL-encoded form fields are not acceptable text, with
// a 400 naming the parameter, before any handler sees them. Path and query
// parameters are one line; form fields follow their rule (text_rules.go),
// with the line breaks of those that span lines normalised.
func CheckParams(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		for i, name := range c.ParamNames() {
			if i < len(c.ParamValues()) {
				if why := oneLine.problem(c.ParamValues()[i]); why != "" {
					return badText(name, why)
				}
			}
		}
		for name, vals := range c.QueryParams() {
			if err := checkValues(name, vals, oneLine); err != nil {
				return err
			}
		}
		r := c.Request()
		// The session proxy passes bodies on unread (session_proxy.go).
		proxied := strings.HasPrefix(c.Path(), "/s/:id")
		if ct, _, _ := strings.Cut(r.Header.Get(echo.HeaderContentType), ";"); strings.TrimSpace(ct) == echo.MIMEApplicationForm && r.Method != http.MethodGet && !proxied {
			if err := r.ParseForm(); err != nil {
				var big *http.MaxBytesError
				if errors.As(err, &big) {
					return Errorf(http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge, "the request body is larger than %d bytes", big.Limit)
				}
				return Errorf(http.StatusBadRequest, api.CodeInvalidForm, "the form could not be read: %v", err)
			}
			for name, vals := range r.PostForm {
				rule := ruleFor(name)
				if err := checkValues(name, vals, rule); err != nil {
					return err
				}
				if rule == lines {
					normalizeValues(vals, rule)
					normalizeValues(r.Form[name], rule)
				}
			}
		}
		return next(c)
	}
}

func checkValues(name string, vals []string, rule textRule) error {
	if why := oneLine.problem(name); why != "" {
		return badText("parameter name", why)
	}
	for _, v := range vals {
		if why := rule.problem(v); why != "" {
			return badText(name, why)
		}
	}
	return nil
}

func normalizeValues(vals []string, rule textRule) {
	for i, v := range vals {
		vals[i] = rule.normalize(v)
	}
}
