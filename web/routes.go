package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// uploadRoutes are the routes that take a multipart body and the larger
// UploadBodyLimit (body_limit.go).
var uploadRoutes = map[string]bool{"/admin/import": true, "/admin/import/confirm": true}

// sessionMethods are the methods the session proxy passes on.
var sessionMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodOptions}

// routes is the one route table of the server.
func (s *Server) routes(o Options) {
	e, h := s.Echo, o.Handlers

	// Probes and scrapes: no auth, no session.
	e.GET("/healthz", h.Healthz)
	e.GET("/readyz", h.Readyz)
	e.GET("/metrics", metricsHandler(o.Gatherer))
	e.GET("/static/*", echo.WrapHandler(o.Static))
	e.HEAD("/static/*", echo.WrapHandler(o.Static))
	e.GET("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, h.Asset("favicon.svg"))
	})

	// JSON API for people and scripts: personal tokens.
	api := e.Group("/api/v1", middleware.BodyLimit("1M"))
	api.GET("/openapi.json", h.OpenAPI)
	user := api.Group("", s.bearer(userTokens))
	user.GET("/me", h.Me)
	user.GET("/cluster/gpu-status", h.ClusterStatus)
	user.POST("/cluster/gpu-allocate", h.GPUAllocate)
	user.POST("/cluster/gpu-release", h.GPURelease)
	user.POST("/cluster/gpu-renew", h.GPURenew)
	user.GET("/queue", h.QueueList)
	user.POST("/queue/submit", h.QueueSubmit)
	user.GET("/queue/statistics", h.QueueStatistics)
	user.GET("/history", h.HistoryList)      // ended jobs, like sacct
	user.GET("/jobs/history", h.HistoryList) // the same, beside the jobs
	user.DELETE("/queue/:id", h.QueueCancel)
	user.PATCH("/queue/:id/priority", h.QueuePriority)
	user.GET("/holds", h.HoldsList)
	user.POST("/holds", h.HoldCreate)
	user.DELETE("/holds/:id", h.HoldCancel)
	user.GET("/jobs/:id", h.JobGet)
	user.GET("/jobs/:id/logs", h.JobLogs)
	user.GET("/cluster/idle-gpus", h.IdleGPUs)
	// Bookings calendar (API).
	user.GET("/bookings", h.BookingsList)
	user.POST("/bookings", h.BookingCreate)
	user.DELETE("/bookings/:id", h.BookingCancel)
	// Booking edits, end early, series, import, export.
	user.GET("/bookings/:id", h.BookingGet)
	user.PATCH("/bookings/:id", h.BookingEdit)
	user.POST("/bookings/:id/end", h.BookingEnd)
	user.GET("/bookings/export", h.BookingExport)
	user.POST("/bookings/series", h.BookingSeriesCreate)
	user.DELETE("/bookings/series/:id", h.BookingSeriesCancel)
	// End of booking edits (API).
	user.GET("/orchestrator/status", h.OrchestratorStatus)
	user.GET("/orchestrator/policies", h.OrchestratorPolicies)
	user.GET("/orchestrator/policies/presets", h.OrchestratorPresets)
	user.GET("/usage", h.UsageData) // the usage page's data
	user.GET("/accounting", h.AccountingData)
	user.GET("/usage/accounting", h.AccountingData) // the same, beside the usage
	// Notifications: preferences, channels, in-app list.
	user.GET("/me/notifications", h.NotifyPrefs)
	user.PUT("/me/notifications", h.NotifyPrefsPut)
	user.GET("/notifications", h.NotifyList)
	user.POST("/notifications/read", h.NotifyRead)
	user.GET("/notifications/deliveries", h.NotifyDeliveries)
	user.GET("/notifications/channels", h.NotifyChannels)
	user.POST("/notifications/channels", h.NotifyChannelCreate)
	user.DELETE("/notifications/channels/:id", h.NotifyChannelDelete)
	user.POST("/notifications/channels/:id/test", h.NotifyChannelTest)
	user.GET("/jobs/:id/idle", h.JobIdle)
	// Interactive sessions (notebooks, web tools on GPUs).
	user.POST("/sessions", h.SessionCreate)
	user.GET("/sessions", h.SessionList)
	user.GET("/sessions/:id", h.SessionGet)
	user.DELETE("/sessions/:id", h.SessionStop)
	user.PUT("/jobs/:id/idle", h.JobIdleOK)
	admin := user.Group("", adminOnly)
	admin.POST("/orchestrator/start", h.OrchestratorStart)
	admin.POST("/orchestrator/stop", h.OrchestratorStop)
	admin.PUT("/orchestrator/policies", h.OrchestratorPutPolicies)
	admin.POST("/cluster/nodes/:name/drain", h.NodeDrain)
	admin.POST("/cluster/nodes/:name/undrain", h.NodeUndrain)
	admin.PUT("/cluster/nodes/:name/mig-layout", h.NodeMIGLayoutPut)
	admin.GET("/holds/stats", h.HoldsStats)
	// Sessions: an admin signs a user out of every browser.
	admin.DELETE("/users/:id/sessions", h.UserSessionsEnd)
	admin.POST("/bookings/import", h.BookingImport) // calendar: the bookings sheet

	// The scoring service (spec/scoring-service.md), canonical under /api/v1/scoring, and
	// the document's bare aliases: a token there too, or none from a trusted network.
	user.POST("/scoring/score", h.ScoringScore)
	user.POST("/scoring/observe", h.ScoringObserve)
	user.GET("/scoring/healthz", h.Healthz)
	user.GET("/scoring/metrics", h.ScoringMetrics(o.Gatherer))
	v1 := e.Group("/v1", middleware.BodyLimit("1M"), h.ScoringAliasAuth(s.bearer(userTokens)))
	v1.POST("/score", h.ScoringScore)
	v1.POST("/observe", h.ScoringObserve)

	// The client agent design's allocate call (spec/client-agent-design.md): a pre-warm hold.
	e.Group("/api/gpuscheduler/v1", middleware.BodyLimit("1M"), s.bearer(userTokens)).POST("/allocate", h.HoldCreate)

	// JSON API for node agents: node tokens.
	node := api.Group("/nodes", s.bearer(nodeTokens))
	node.POST("/register", h.NodeRegister)
	node.GET("/self", h.NodeSelf) // node doctor checks token and clock
	node.POST("/:id/heartbeat", h.NodeHeartbeat)
	node.POST("/:id/memory", h.NodeMemory) // share jobs' GPU memory against their shares
	node.GET("/:id/commands", h.NodeCommands)
	node.POST("/:id/commands/:cmd/result", h.NodeCommandResult)
	node.POST("/:id/commands/:cmd/exit", h.NodeCommandExit)
	node.POST("/:id/commands/:cmd/logs", h.NodeCommandLogs)
	node.POST("/:id/leases", h.NodeLeaseCreate)
	node.GET("/:id/leases", h.NodeLeaseList)
	node.GET("/:id/leases/:job", h.NodeLeaseGet)
	node.DELETE("/:id/leases/:job", h.NodeLeaseEnd)
	node.POST("/:id/sessions/:job/ready", h.NodeSessionReady)

	// Calendar feeds (calendar): the secret token in the path is the only credential; read-only.
	e.GET("/calendar/:file", h.CalendarFeed)

	// Unknown /api routes answer JSON 404, not the HTML page.
	api.Any("/*", func(c echo.Context) error { return echo.ErrNotFound })

	// Browser pages: session cookie, CSRF on every state change.
	csrf := middleware.CSRFWithConfig(middleware.CSRFConfig{
		TokenLookup:    "header:X-CSRF-Token,form:_csrf",
		CookieName:     "gpusched_csrf",
		CookiePath:     "/",
		CookieHTTPOnly: true,
		CookieSecure:   o.SecureCookies,
		CookieSameSite: http.SameSiteLaxMode,
		Skipper: func(c echo.Context) bool {
			// The River UI cannot send our token; it is guarded by sameOrigin.
			return len(c.Request().URL.Path) >= 12 && c.Request().URL.Path[:12] == "/admin/river"
		},
	})
	// Sign-in (SSO and dev), rate-limited per client address before anything
	// else. Declared before pages so that pages' catch-all 404 wins.
	signIn := e.Group("", signInLimit(o.SignInRate), s.session, csrf)
	signIn.POST("/auth/dev", h.DevLogin)
	signIn.GET("/auth/:provider", h.SSOBegin)
	signIn.GET("/auth/:provider/callback", h.SSOCallback)
	// Bookings import: upload → preview → confirm (calendar). The one
	// upload (uploadRoutes: a larger body, multipart allowed), so the caller
	// must be a signed-in admin before the CSRF check reads the body.
	imp := e.Group("/admin/import", s.session, signedIn, adminOnly, csrf)
	imp.GET("", h.AdminImport)
	imp.POST("", h.AdminImportPreview)
	imp.POST("/confirm", h.AdminImportConfirm)
	// Interactive sessions through the proxy: the dashboard's session, no
	// CSRF token (the session server's own XSRF check applies; the
	// session cookie is SameSite=Lax).
	sess := e.Group("/s", s.session, signedIn)
	sess.GET("/:id", h.SessionProxy) // to /s/{id}/
	sess.Match(sessionMethods, "/:id/*", h.SessionProxy)
	pages := e.Group("", s.session, csrf)
	pages.GET("/login", h.LoginPage)
	pages.POST("/auth/logout", h.Logout)

	in := pages.Group("", signedIn)
	in.GET("/", h.ClusterPage)
	in.GET("/fragments/cluster", h.ClusterFragment)
	in.GET("/queue", h.QueuePage)
	in.GET("/fragments/queue", h.QueueFragment)
	in.GET("/history", h.HistoryPage) // ended jobs
	in.POST("/jobs/:id/cancel", h.JobCancelPage)
	// Job detail page and queue actions.
	in.GET("/jobs/:id", h.JobPage)
	in.GET("/fragments/jobs/:id", h.JobFragment)
	in.GET("/fragments/jobs/:id/logs", h.JobLogsFragment)
	in.POST("/jobs/:id/priority", h.JobPriorityPage)
	in.POST("/queue", h.QueueSubmitPage)
	// Interactive sessions (page): list, start a notebook, stop.
	in.GET("/sessions", h.SessionsPage)
	in.GET("/fragments/sessions", h.SessionsFragment)
	in.POST("/sessions", h.SessionStartPage)
	in.POST("/sessions/:id/stop", h.SessionStopPage)
	// Bookings calendar (pages).
	in.GET("/bookings", h.BookingsPage)
	in.GET("/fragments/bookings", h.BookingsFragment)
	in.POST("/bookings", h.BookingCreatePage)
	in.POST("/bookings/:id/cancel", h.BookingCancelPage)
	// Booking page: edit, end early, cancel one or the series (calendar).
	in.GET("/bookings/:id", h.BookingPage)
	in.POST("/bookings/:id/edit", h.BookingEditPage)
	in.POST("/bookings/:id/end", h.BookingEndPage)
	in.POST("/bookings/:id/cancel-one", h.BookingCancelOnePage)
	in.GET("/bookings/export", h.BookingExport)
	in.POST("/bookings/series/:id/cancel", h.BookingSeriesCancelPage)
	in.GET("/bookings/series/new", h.BookingSeriesNewPage)
	in.POST("/bookings/series", h.BookingSeriesCreatePage)
	in.GET("/bookings/:id/export.ics", h.BookingICS)
	in.GET("/settings/feeds", h.FeedsPage)
	in.POST("/settings/feeds/:scope/regenerate", h.FeedRegeneratePage)
	in.POST("/settings/feeds/:scope/revoke", h.FeedRevokePage)
	// End of booking page.
	// Usage: graphs of telemetry, GPU-hours, the queue and fair share.
	in.GET("/usage", h.UsagePage)
	in.GET("/usage/data", h.UsageData)
	// Accounting: GPU-hours, booked-but-idle, reclaimed and cost per user or team.
	in.GET("/accounting", h.AccountingPage)
	in.GET("/accounting/export", h.AccountingExport)
	in.GET("/events", s.hub.Stream, s.endWithSession) // the stream ends with its session
	// API tokens and admin pages.
	in.GET("/settings/tokens", h.TokensPage)
	in.POST("/settings/tokens", h.TokenCreatePage)
	in.POST("/settings/tokens/:prefix/revoke", h.TokenRevokePage)
	// Settings index and sessions.
	in.GET("/settings", h.SettingsPage)
	in.POST("/settings/sessions/end-all", h.SessionsEndAllPage)
	in.POST("/settings/sessions/:id/end", h.SessionEndPage)
	// Notifications: bell, list, settings.
	in.GET("/fragments/bell", h.BellFragment)
	in.GET("/notifications", h.NotificationsPage)
	in.POST("/notifications/read", h.NotificationsReadPage)
	in.GET("/settings/notifications", h.NotifySettingsPage)
	in.POST("/settings/notifications", h.NotifySettingsSave)
	in.POST("/settings/notifications/channels", h.NotifyChannelCreatePage)
	in.POST("/settings/notifications/channels/:id/test", h.NotifyChannelTestPage)
	in.POST("/settings/notifications/channels/:id/delete", h.NotifyChannelDeletePage)
	// Time zone setting and the calendar's views (calview).
	in.GET("/settings/time-zone", h.TimeZonePage)
	in.POST("/settings/time-zone", h.TimeZoneSave)
	adm := in.Group("/admin", adminOnly)
	adm.GET("", h.AdminHome)
	adm.GET("/users", h.AdminUsers)
	adm.POST("/users/:id", h.AdminUserUpdate)
	adm.POST("/users/:id/sessions/end", h.AdminUserSessionsEnd)
	adm.GET("/teams", h.AdminTeams)
	adm.POST("/teams", h.AdminTeamCreate)
	adm.POST("/teams/:id", h.AdminTeamUpdate)
	adm.GET("/policies", h.AdminPolicies)
	adm.POST("/policies", h.AdminPoliciesSave)
	adm.GET("/nodes", h.AdminNodes)
	adm.POST("/nodes/:name/drain", h.AdminNodeDrain)
	adm.POST("/nodes/:name/undrain", h.AdminNodeUndrain)
	adm.POST("/nodes/:name/mig-layout", h.AdminNodeMIGLayout)
	adm.GET("/audit", h.AdminAudit)
	adm.GET("/notifications", h.AdminNotifications)
	adm.POST("/notifications/channels", h.AdminTeamChannelCreate)
	adm.POST("/notifications/channels/:id/test", h.AdminTeamChannelTest)
	adm.POST("/notifications/channels/:id/delete", h.AdminTeamChannelDelete)

	if o.RiverUI != nil {
		river := in.Group("/admin/river", adminOnly, sameOrigin)
		river.Any("", echo.WrapHandler(o.RiverUI))
		river.Any("/*", echo.WrapHandler(o.RiverUI))
	}
}

// sessionOriginRoutes is the route table of the session origin
// (session_origin.go): the handoff from the dashboard, then the proxy.
func (s *Server) sessionOriginRoutes(e *echo.Echo) {
	h := s.h
	e.GET("/s/:id/_auth", h.SessionOriginAuth)
	sess := e.Group("/s", s.sessionOriginUser)
	sess.GET("/:id", h.SessionProxy) // to /s/{id}/
	sess.Match(sessionMethods, "/:id/*", h.SessionProxy)
}
