package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// StatusClientClosed is the status of a request its client abandoned
// before the answer (nginx's 499): logged as that, never as a 500.
const StatusClientClosed = 499

// wantsJSON reports whether an error should be answered as JSON: API routes,
// the scoring and agent aliases, and clients that ask for JSON.
func wantsJSON(c echo.Context) bool {
	p := c.Request().URL.Path
	if strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/v1/") || p == "/healthz" || p == "/readyz" {
		return true
	}
	accept := c.Request().Header.Get(echo.HeaderAccept)
	return strings.Contains(accept, echo.MIMEApplicationJSON) && !strings.Contains(accept, "text/html")
}

// errorHandler is echo's one error handler: every error leaves here as a
// flat JSON {"error","code"} for the API or an HTML page for browsers. Our
// own faults are logged with the request id and shown without their detail.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, code, msg := http.StatusInternalServerError, api.CodeInternal, "something went wrong on our side; the error was logged"
	var apiErr *handlers.APIError
	var httpErr *echo.HTTPError
	switch {
	case errors.As(err, &apiErr):
		status, code, msg = apiErr.Status, apiErr.Code, apiErr.Message
	case errors.As(err, &httpErr):
		status = httpErr.Code
		code = codeFor(status)
		msg = http.StatusText(status)
		if m, ok := httpErr.Message.(string); ok && m != "" {
			msg = m
		}
		if status == http.StatusNotFound {
			msg = "no such page or route: " + c.Request().URL.Path
		}
	}
	if status == http.StatusInternalServerError && errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil {
		// The client gave up (or the server is shutting down) before the
		// answer: not a fault of ours to alarm on, and nobody reads it.
		status, code, msg = StatusClientClosed, api.CodeClientClosed, "the request was abandoned before its answer"
		s.logger.Debug("request abandoned by its client", "err", err, "method", c.Request().Method, "path", logPath(c.Request().URL.Path))
	}
	reqID := c.Response().Header().Get(echo.HeaderXRequestID)
	if status >= 500 {
		s.logger.Error("request failed", "err", err, "request_id", reqID, "method", c.Request().Method, "path", logPath(c.Request().URL.Path))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	if wantsJSON(c) {
		_ = c.JSON(status, api.Error{Message: msg, Code: code})
		return
	}
	page := s.h.Page(c, http.StatusText(status), "")
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	_ = views.ErrorPageView(page, views.ErrorPage{Status: status, Title: http.StatusText(status), Message: msg, RequestID: reqID}).
		Render(c.Request().Context(), c.Response())
}

func codeFor(status int) string {
	switch status {
	case http.StatusBadRequest:
		return api.CodeBadRequest
	case http.StatusUnauthorized:
		return api.CodeUnauthorized
	case http.StatusForbidden:
		return api.CodeForbidden
	case http.StatusNotFound:
		return api.CodeNotFound
	case http.StatusMethodNotAllowed:
		return api.CodeMethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return api.CodeBodyTooLarge
	case http.StatusTooManyRequests:
		return api.CodeRateLimited
	case http.StatusServiceUnavailable:
		return api.CodeUnavailable
	}
	if status >= 500 {
		return api.CodeInternal
	}
	return strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_")
}
