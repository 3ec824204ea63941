package web

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// A request whose client went away before the answer is logged and
// answered as abandoned (499), never as a 500 that alarms; a canceled
// context that is not the request's own is still our fault.
func TestAbandonedRequestIsNotAServerError(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		clientGone bool
		wantStatus int
		wantCode   string
		wantError  bool // an ERROR line in the log
	}{
		"client gone":                        {clientGone: true, wantStatus: StatusClientClosed, wantCode: "client_closed_request"},
		"canceled inside, not by the client": {clientGone: false, wantStatus: http.StatusInternalServerError, wantCode: "internal", wantError: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			s := &Server{logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
			ctx, cancel := context.WithCancel(context.Background())
			if tc.clientGone {
				cancel()
			} else {
				defer cancel()
			}
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/v1/queue/submit", nil)
			rec := httptest.NewRecorder()
			s.errorHandler(fmt.Errorf("handlers: time-limit policy: %w", context.Canceled), echo.New().NewContext(req, rec))
			if rec.Code != tc.wantStatus || !strings.Contains(rec.Body.String(), `"code":"`+tc.wantCode+`"`) {
				t.Errorf("answered %d %s, want %d with code %s", rec.Code, rec.Body, tc.wantStatus, tc.wantCode)
			}
			if got := strings.Contains(logs.String(), "level=ERROR"); got != tc.wantError {
				t.Errorf("ERROR logged: %v, want %v:\n%s", got, tc.wantError, logs.String())
			}
		})
	}
}
