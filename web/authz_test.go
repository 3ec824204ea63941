package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// The four callers every route is tried as.
const (
	anonymous = iota
	member    // owns the jobs, holds and tokens the rows act on
	other     // another member
	admin
)

// authzFixture holds the callers' credentials and makes fresh objects
// owned by member, so that each request acts on its own.
type authzFixture struct {
	t        *testing.T
	s        *testserver.Server
	tokens   [4]string // personal API tokens
	sessions [4]string // session cookies
	ids      [4]int64  // user ids
	seq      atomic.Int64
}

// authzRow is what one route answers each caller: anonymous, member, other
// member, admin. req makes the concrete path and body (nil: the route path).
type authzRow struct {
	req  func(f *authzFixture) (path, body string)
	want [4]int
	// same maps a status to another that means the same to authorization
	// (an allocation granted at once, 200, or still waiting, 202).
	same map[int]int
}

// path returns a req that sends p with body.
func path(p, body string) func(*authzFixture) (string, string) {
	return func(*authzFixture) (string, string) { return p, body }
}

// authzRows covers every route of the server, keyed by "METHOD PATH"
// ("ANY PATH" covers every method of a catch-all).
func authzRows() map[string]authzRow {
	all := func(st int) [4]int { return [4]int{st, st, st, st} }
	user := func(st int) [4]int { return [4]int{401, st, st, st} } // API: any user
	page := func(st int) [4]int { return [4]int{303, st, st, st} } // page GET: any user
	post := func(st int) [4]int { return [4]int{401, st, st, st} } // page POST: any user
	adminAPI := func(st int) [4]int { return [4]int{401, 403, 403, st} }
	adminPage := func(st int) [4]int { return [4]int{303, 403, 403, st} }
	adminPost := func(st int) [4]int { return [4]int{401, 403, 403, st} }
	own := func(ok, notFound int) [4]int { return [4]int{401, ok, notFound, ok} } // member's own object; admins may too
	node := [4]int{401, 403, 403, 403}                                            // node tokens only
	preset := scheduler.PresetNames()[0]
	return map[string]authzRow{
		// Probes, assets, the API description: open.
		"GET /healthz":             {want: all(200)},
		"GET /readyz":              {want: all(200)},
		"GET /metrics":             {want: all(200)},
		"GET /favicon.ico":         {want: all(301)},
		"GET /static/*":            {req: asset, want: all(200)},
		"HEAD /static/*":           {req: asset, want: all(200)},
		"GET /api/v1/openapi.json": {want: all(200)},
		"ANY /api/v1/*":            {req: path("/api/v1/no-such-route", ""), want: all(404)},

		// The JSON API for people: a personal token.
		"GET /api/v1/me":                             {want: user(200)},
		"GET /api/v1/cluster/gpu-status":             {want: user(200)},
		"GET /api/v1/cluster/idle-gpus":              {want: user(200)},
		"POST /api/v1/cluster/gpu-allocate":          {req: path("", `{"gpu_count":1,"timeout_s":0}`), want: user(202), same: map[int]int{200: 202}},
		"POST /api/v1/cluster/gpu-release":           {req: (*authzFixture).release, want: own(200, 404)},
		"POST /api/v1/cluster/gpu-renew":             {req: (*authzFixture).release, want: own(200, 404)},
		"GET /api/v1/queue":                          {want: user(200)},
		"POST /api/v1/queue/submit":                  {req: path("", `{"gpu_count":1,"executor":"lease","name":"authz"}`), want: user(201)},
		"GET /api/v1/queue/statistics":               {want: user(200)},
		"DELETE /api/v1/queue/:id":                   {req: jobPath("/api/v1/queue/%d", ""), want: own(200, 404)},
		"PATCH /api/v1/queue/:id/priority":           {req: jobPath("/api/v1/queue/%d/priority", `{"priority":"high"}`), want: own(200, 404)},
		"GET /api/v1/jobs/:id":                       {req: jobPath("/api/v1/jobs/%d", ""), want: own(200, 404)},
		"GET /api/v1/jobs/:id/logs":                  {req: jobPath("/api/v1/jobs/%d/logs", ""), want: own(200, 404)},
		"GET /api/v1/holds":                          {want: user(200)},
		"POST /api/v1/holds":                         {req: path("", `{"gpu_count":1}`), want: user(202)},
		"DELETE /api/v1/holds/:id":                   {req: (*authzFixture).hold, want: own(200, 404)},
		"POST /api/gpuscheduler/v1/allocate":         {req: path("", `{"gpu_count":1}`), want: user(202)},
		"GET /api/v1/orchestrator/status":            {want: user(200)},
		"GET /api/v1/orchestrator/policies":          {want: user(200)},
		"GET /api/v1/orchestrator/policies/presets":  {want: user(200)},
		"POST /api/v1/scoring/score":                 {req: path("", `{}`), want: user(400)},
		"POST /api/v1/scoring/observe":               {req: path("", `{}`), want: user(400)},
		"GET /api/v1/scoring/healthz":                {want: user(200)},
		"GET /api/v1/scoring/metrics":                {want: user(200)},
		"POST /v1/score":                             {req: path("", `{}`), want: user(400)},
		"POST /v1/observe":                           {req: path("", `{}`), want: user(400)},
		"POST /api/v1/orchestrator/start":            {want: adminAPI(200)},
		"POST /api/v1/orchestrator/stop":             {req: path("/api/v1/orchestrator/stop", ""), want: adminAPI(200)},
		"PUT /api/v1/orchestrator/policies":          {req: path("", `{"preset":"`+preset+`"}`), want: adminAPI(200)},
		"POST /api/v1/cluster/nodes/:name/drain":     {req: path("/api/v1/cluster/nodes/gpu-a/drain", ""), want: adminAPI(200)},
		"POST /api/v1/cluster/nodes/:name/undrain":   {req: path("/api/v1/cluster/nodes/gpu-a/undrain", ""), want: adminAPI(200)},
		"PUT /api/v1/cluster/nodes/:name/mig-layout": {req: path("/api/v1/cluster/nodes/gpu-a/mig-layout", `{"layout":"gpu 0: whole"}`), want: adminAPI(200)},
		"GET /api/v1/holds/stats":                    {want: adminAPI(200)},

		// The JSON API for node agents: personal tokens are refused.
		"POST /api/v1/nodes/register":                 {req: path("", `{}`), want: node},
		"GET /api/v1/nodes/self":                      {want: node}, // node doctor
		"POST /api/v1/nodes/:id/heartbeat":            {req: path("/api/v1/nodes/1/heartbeat", `{}`), want: node},
		"POST /api/v1/nodes/:id/memory":               {req: path("/api/v1/nodes/1/memory", `{}`), want: node},
		"GET /api/v1/nodes/:id/commands":              {req: path("/api/v1/nodes/1/commands", ""), want: node},
		"POST /api/v1/nodes/:id/commands/:cmd/result": {req: path("/api/v1/nodes/1/commands/1/result", `{}`), want: node},
		"POST /api/v1/nodes/:id/commands/:cmd/exit":   {req: path("/api/v1/nodes/1/commands/1/exit", `{}`), want: node},
		"POST /api/v1/nodes/:id/commands/:cmd/logs":   {req: path("/api/v1/nodes/1/commands/1/logs", `{}`), want: node},
		"POST /api/v1/nodes/:id/leases":               {req: path("/api/v1/nodes/1/leases", `{}`), want: node},
		"GET /api/v1/nodes/:id/leases":                {req: path("/api/v1/nodes/1/leases", ""), want: node},
		"GET /api/v1/nodes/:id/leases/:job":           {req: path("/api/v1/nodes/1/leases/1", ""), want: node},
		"DELETE /api/v1/nodes/:id/leases/:job":        {req: path("/api/v1/nodes/1/leases/1", ""), want: node},

		// Sign-in.
		"GET /login":                   {want: [4]int{200, 303, 303, 303}},
		"POST /auth/logout":            {want: all(303)},
		"POST /auth/dev":               {req: path("", "email=newcomer%40example.com"), want: all(303)},
		"GET /auth/:provider":          {req: path("/auth/oidc", ""), want: all(302)},
		"GET /auth/:provider/callback": {req: path("/auth/oidc/callback?code=x&state=y", ""), want: all(400)},

		// Pages for everyone signed in.
		"GET /":                                {want: page(200)},
		"GET /fragments/cluster":               {want: page(200)},
		"GET /queue":                           {want: page(200)},
		"GET /fragments/queue":                 {want: page(200)},
		"GET /fragments/sessions":              {want: page(200)},
		"GET /events":                          {want: page(200)},
		"POST /jobs/:id/cancel":                {req: jobPath("/jobs/%d/cancel", ""), want: [4]int{401, 303, 404, 303}},
		"GET /settings/tokens":                 {want: page(200)},
		"POST /settings/tokens":                {req: path("", "name=laptop"), want: post(201)},
		"POST /settings/tokens/:prefix/revoke": {req: (*authzFixture).revoke, want: [4]int{401, 303, 404, 404}},
		// Settings and sessions: one's own sessions; admins end anyone's.
		"GET /settings":                      {want: page(200)},
		"POST /settings/sessions/end-all":    {want: post(303)},
		"POST /settings/sessions/:id/end":    {req: (*authzFixture).memberSession, want: [4]int{401, 303, 404, 404}},
		"POST /admin/users/:id/sessions/end": {req: signedInUser("/admin/users/%d/sessions/end"), want: adminPost(303)},
		"DELETE /api/v1/users/:id/sessions":  {req: signedInUser("/api/v1/users/%d/sessions"), want: adminAPI(200)},

		// Notifications: one's own preferences, channels and bell; dead deliveries for admins.
		"GET /api/v1/me/notifications":                     {want: user(200)},
		"PUT /api/v1/me/notifications":                     {req: path("", `{}`), want: user(200)},
		"GET /api/v1/notifications":                        {want: user(200)},
		"POST /api/v1/notifications/read":                  {req: path("", `{}`), want: user(200)},
		"GET /api/v1/notifications/deliveries":             {want: user(200)},
		"GET /api/v1/notifications/channels":               {want: user(200)},
		"POST /api/v1/notifications/channels":              {req: path("", `{"type":"webhook","url":"https://hooks.example.com/x"}`), want: user(201)},
		"DELETE /api/v1/notifications/channels/:id":        {req: path("/api/v1/notifications/channels/999999", ""), want: [4]int{401, 404, 404, 404}},
		"POST /api/v1/notifications/channels/:id/test":     {req: path("/api/v1/notifications/channels/999999/test", ""), want: [4]int{401, 404, 404, 404}},
		"GET /fragments/bell":                              {want: page(200)},
		"GET /notifications":                               {want: page(200)},
		"POST /notifications/read":                         {want: post(303)},
		"GET /settings/notifications":                      {want: page(200)},
		"POST /settings/notifications":                     {want: post(200)},
		"POST /settings/notifications/channels":            {req: path("", "type=webhook&target=https%3A%2F%2Fhooks.example.com%2Fy"), want: post(200)},
		"POST /settings/notifications/channels/:id/test":   {req: path("/settings/notifications/channels/999999/test", ""), want: [4]int{401, 404, 404, 404}},
		"POST /settings/notifications/channels/:id/delete": {req: path("/settings/notifications/channels/999999/delete", ""), want: [4]int{401, 404, 404, 404}},
		"GET /api/v1/jobs/:id/idle":                        {req: jobPath("/api/v1/jobs/%d/idle", ""), want: own(200, 404)},
		"PUT /api/v1/jobs/:id/idle":                        {req: jobPath("/api/v1/jobs/%d/idle", `{"idle_ok":false}`), want: own(200, 404)},
		"GET /admin/notifications":                         {want: adminPage(200)},
		"POST /admin/notifications/channels":               {req: path("", "type=slack&url=https://hooks.slack.com/services/T0/B0/authz"), want: adminPost(200)},
		"POST /admin/notifications/channels/:id/test":      {req: path("/admin/notifications/channels/999999/test", ""), want: adminPost(404)},
		"POST /admin/notifications/channels/:id/delete":    {req: path("/admin/notifications/channels/999999/delete", ""), want: adminPost(404)},

		// Time zone setting (calview): anyone signed in, for themselves.
		"GET /settings/time-zone":  {want: page(200)},
		"POST /settings/time-zone": {req: path("", "time_zone=Europe%2FBerlin"), want: post(200)},

		// Bookings: anyone signed in sees and books; only the owner or an admin cancels.
		"GET /api/v1/bookings":        {want: user(200)},
		"POST /api/v1/bookings":       {req: (*authzFixture).bookingBody, want: user(201)},
		"DELETE /api/v1/bookings/:id": {req: bookingPath("/api/v1/bookings/%d"), want: [4]int{401, 200, 403, 200}},
		"GET /bookings":               {want: page(200)},
		"GET /fragments/bookings":     {want: page(200)},
		"POST /bookings":              {req: (*authzFixture).bookingForm, want: post(303)},
		"POST /bookings/:id/cancel":   {req: bookingPath("/bookings/%d/cancel"), want: [4]int{401, 303, 403, 303}},
		// Booking edits, end early, series, import, export, feeds (calendar).
		"GET /api/v1/bookings/:id":               {req: bookingPath("/api/v1/bookings/%d"), want: user(200)},
		"PATCH /api/v1/bookings/:id":             {req: bookingPathBody("/api/v1/bookings/%d", `{"note":"authz"}`), want: [4]int{401, 200, 403, 200}},
		"POST /api/v1/bookings/:id/end":          {req: bookingPath("/api/v1/bookings/%d/end"), want: [4]int{401, 409, 403, 409}},
		"GET /bookings/:id":                      {req: bookingPath("/bookings/%d"), want: page(200)},
		"POST /bookings/:id/edit":                {req: bookingPathBody("/bookings/%d/edit", "extend=30m"), want: [4]int{401, 303, 403, 303}},
		"POST /bookings/:id/end":                 {req: bookingPath("/bookings/%d/end"), want: [4]int{401, 409, 403, 409}},
		"POST /bookings/:id/cancel-one":          {req: bookingPath("/bookings/%d/cancel-one"), want: [4]int{401, 303, 403, 303}},
		"POST /api/v1/bookings/import":           {req: path("/api/v1/bookings/import?dry_run=true", "email,gpus,start,end\n"), want: adminAPI(200)},
		"GET /api/v1/bookings/export":            {want: user(200)},
		"GET /bookings/export":                   {want: page(200)},
		"GET /bookings/:id/export.ics":           {req: bookingPath("/bookings/%d/export.ics"), want: page(200)},
		"GET /settings/feeds":                    {want: page(200)},
		"POST /settings/feeds/:scope/regenerate": {req: path("/settings/feeds/mine/regenerate", ""), want: post(201)},
		"POST /settings/feeds/:scope/revoke":     {req: path("/settings/feeds/team/revoke", ""), want: post(303)},
		"GET /calendar/:file":                    {req: path("/calendar/cal_not-a-real-token-at-all.ics", ""), want: all(404)},
		"GET /admin/import":                      {want: adminPage(200)},
		"POST /admin/import":                     {want: adminPost(400)},
		"POST /admin/import/confirm":             {want: adminPost(400)},
		"POST /api/v1/bookings/series":           {req: (*authzFixture).seriesBody, want: user(201)},
		"DELETE /api/v1/bookings/series/:id":     {req: seriesPath("/api/v1/bookings/series/%d"), want: [4]int{401, 200, 403, 200}},
		"POST /bookings/series/:id/cancel":       {req: seriesPath("/bookings/series/%d/cancel"), want: [4]int{401, 303, 403, 303}},
		"GET /bookings/series/new":               {want: page(200)},
		"POST /bookings/series":                  {req: (*authzFixture).seriesForm, want: post(303)},
		// End of calendar rows.

		// Job pages: every member may look; output and actions are the owner's (and admins').
		"GET /jobs/:id":                {req: jobPath("/jobs/%d", ""), want: page(200)},
		"GET /fragments/jobs/:id":      {req: jobPath("/fragments/jobs/%d", ""), want: page(200)},
		"GET /fragments/jobs/:id/logs": {req: jobPath("/fragments/jobs/%d/logs", ""), want: [4]int{303, 200, 404, 200}},
		"POST /jobs/:id/priority":      {req: jobPath("/jobs/%d/priority", "priority=high"), want: [4]int{401, 303, 404, 303}},
		"POST /queue":                  {req: path("", "gpu_count=1&executor=lease&name=authz&priority=normal"), want: post(303)},

		// Usage graphs: every signed-in user (members see their teams and themselves).
		"GET /usage":        {want: page(200)},
		"GET /usage/data":   {want: page(200)},
		"GET /api/v1/usage": {want: user(200)},
		// History and accounting: every signed-in user (accounting shows members their own and their team's rows).
		"GET /history":                 {want: page(200)},
		"GET /api/v1/history":          {want: user(200)},
		"GET /api/v1/jobs/history":     {want: user(200)},
		"GET /accounting":              {want: page(200)},
		"GET /accounting/export":       {want: page(200)},
		"GET /api/v1/accounting":       {want: user(200)},
		"GET /api/v1/usage/accounting": {want: user(200)},

		// Admin pages.
		"GET /admin":                         {want: [4]int{303, 403, 403, 303}},
		"GET /admin/users":                   {want: adminPage(200)},
		"POST /admin/users/:id":              {req: (*authzFixture).userUpdate, want: adminPost(303)},
		"GET /admin/teams":                   {want: adminPage(200)},
		"POST /admin/teams":                  {req: (*authzFixture).teamCreate, want: adminPost(303)},
		"POST /admin/teams/:id":              {req: (*authzFixture).teamUpdate, want: adminPost(303)},
		"GET /admin/policies":                {want: adminPage(200)},
		"POST /admin/policies":               {req: path("", "action=preview&preset="+preset), want: adminPost(200)},
		"GET /admin/nodes":                   {want: adminPage(200)},
		"POST /admin/nodes/:name/drain":      {req: path("/admin/nodes/gpu-a/drain", ""), want: adminPost(303)},
		"POST /admin/nodes/:name/undrain":    {req: path("/admin/nodes/gpu-a/undrain", ""), want: adminPost(303)},
		"POST /admin/nodes/:name/mig-layout": {req: path("/admin/nodes/gpu-a/mig-layout", "layout=gpu+0%3A+whole"), want: adminPost(303)},
		"GET /admin/audit":                   {want: adminPage(200)},
		"ANY /admin/river":                   {want: adminPage(301)}, // to /admin/river/
		"ANY /admin/river/*":                 {req: path("/admin/river/", ""), want: adminPage(200)},

		// Interactive sessions: the owner's (and admins'); the proxy answers
		// another member 404 and someone signed out with the sign-in page.
		"POST /api/v1/sessions":                      {req: path("", `{"kind":"web","command":"true"}`), want: user(201)},
		"GET /api/v1/sessions":                       {want: user(200)},
		"GET /api/v1/sessions/:id":                   {req: sessionPath("/api/v1/sessions/%d"), want: own(200, 404)},
		"DELETE /api/v1/sessions/:id":                {req: sessionPath("/api/v1/sessions/%d"), want: own(200, 404)},
		"POST /api/v1/nodes/:id/sessions/:job/ready": {req: path("/api/v1/nodes/1/sessions/1/ready", `{}`), want: node},
		"GET /sessions":                              {want: page(200)},
		"POST /sessions":                             {req: path("", "kind=jupyter&gpu_count=1"), want: post(303)},
		"POST /sessions/:id/stop":                    {req: sessionPath("/sessions/%d/stop"), want: [4]int{401, 303, 404, 303}},
		"GET /s/:id":                                 {req: sessionPath("/s/%d"), want: [4]int{303, 303, 404, 303}},
		"ANY /s/:id/*":                               {req: sessionPath("/s/%d/api/status"), want: [4]int{303, 503, 404, 503}}, // not ready: no agent
	}
}

// sessionPath makes a fresh session of member's for each request.
func sessionPath(format string) func(*authzFixture) (string, string) {
	return func(f *authzFixture) (string, string) {
		return fmt.Sprintf(format, f.api("POST", "/api/v1/sessions", `{"kind":"web","command":"true"}`, 201)), ""
	}
}

// Every route of the server, as anonymous, member, another member and
// admin. A route without a row fails, so new routes must say who may call them.
func TestAuthorizationOfEveryRoute(t *testing.T) {
	t.Parallel()
	s, _ := startSSOWith(t, testserver.Options{RiverUI: true}, func(h *handlers.Handlers) {
		h.Config.HoldLimit = 1000
		h.Config.Bookings.MaxLive = 1000
	})
	f := newAuthzFixture(t, s)
	rows := authzRows()
	seen := map[string]bool{}
	var keys []string
	for _, r := range s.Web.Echo.Routes() {
		if r.Method == echoRouteNotFound {
			continue
		}
		key := r.Method + " " + r.Path
		if _, ok := rows[key]; !ok {
			key = "ANY " + r.Path
		}
		if _, ok := rows[key]; !ok {
			t.Errorf("route %s %s has no row in authzRows: say who may call it", r.Method, r.Path)
			continue
		}
		method := r.Method
		if strings.HasPrefix(key, "ANY ") {
			if seen[key] {
				continue
			}
			method = http.MethodGet
		}
		seen[key] = true
		keys = append(keys, method+" "+key)
	}
	sort.Strings(keys)
	for _, k := range keys {
		method, key, _ := strings.Cut(k, " ")
		row := rows[key]
		_, routePath, _ := strings.Cut(key, " ")
		t.Run(key, func(t *testing.T) {
			f.t = t
			var got [4]int
			for who := range 4 {
				p, body := routePath, ""
				if row.req != nil {
					p, body = row.req(f)
					if p == "" {
						p = routePath
					}
				}
				got[who] = f.do(who, method, p, body)
				if st, ok := row.same[got[who]]; ok {
					got[who] = st
				}
			}
			if diff := cmp.Diff(row.want, got); diff != "" {
				t.Errorf("statuses as [anonymous member other admin] (-want +got):\n%s", diff)
			}
			if endsCallersSessions[key] {
				f.relogin()
			}
		})
	}
}

// echoRouteNotFound is the method echo lists its catch-all 404 routes under.
const echoRouteNotFound = "echo_route_not_found"

func newAuthzFixture(t *testing.T, s *testserver.Server) *authzFixture {
	t.Helper()
	registerGPUs(t, s, "gpu-a", 64)
	f := &authzFixture{t: t, s: s}
	for who, email := range map[int]string{member: "member@example.com", other: "other@example.com", admin: "admin@example.com"} {
		c := s.Login(t, email)
		for _, ck := range c.Jar.Cookies(mustURL(t, s.URL)) {
			if ck.Name == web.SessionCookie {
				f.sessions[who] = ck.Value
			}
		}
		u, err := models.GetUserByEmail(context.Background(), s.DB.Bun, email)
		if err != nil {
			t.Fatal(err)
		}
		role := models.RoleMember
		if who == admin {
			role = models.RoleAdmin
		}
		if err := models.SetUserRole(context.Background(), s.DB.Bun, u.ID, role); err != nil {
			t.Fatal(err)
		}
		f.ids[who] = u.ID
		if f.tokens[who], _, err = models.CreateUserToken(context.Background(), s.DB.Bun, u.ID, "authz", nil); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// do sends one request as who and returns the status. API paths carry the
// caller's token; pages carry the session cookie and a CSRF token, so that
// what is tested is who may call, not the CSRF check.
func (f *authzFixture) do(who int, method, p, body string) int {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, f.s.URL+p, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/v1/") {
		req.Header.Set("Content-Type", "application/json")
		if who != anonymous {
			req.Header.Set("Authorization", "Bearer "+f.tokens[who])
		}
	} else {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-CSRF-Token", "authz-csrf-token")
		req.AddCookie(&http.Cookie{Name: "gpusched_csrf", Value: "authz-csrf-token"})
		if who != anonymous {
			req.AddCookie(&http.Cookie{Name: web.SessionCookie, Value: f.sessions[who]})
		}
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		f.t.Fatalf("%s %s: %v", method, p, err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	return resp.StatusCode
}

// api calls the JSON API as member and decodes the answer's id.
func (f *authzFixture) api(method, p, body string, want int) int64 {
	f.t.Helper()
	st, b := f.s.Do(f.t, method, p, f.tokens[member], body)
	if st != want {
		f.t.Fatalf("%s %s: %d %s", method, p, st, b)
	}
	var out struct {
		ID int64 `json:"id"`
	}
	mustJSON(f.t, b, &out)
	return out.ID
}

// jobPath makes a fresh pending job of member's for each request.
func jobPath(format, body string) func(*authzFixture) (string, string) {
	return func(f *authzFixture) (string, string) {
		id := f.api("POST", "/api/v1/queue/submit", `{"gpu_count":1,"executor":"lease","name":"authz"}`, 201)
		return fmt.Sprintf(format, id), body
	}
}

// bookingWindow is a fresh hour, a day ahead, for each booking the test makes,
// so that no two clash.
func (f *authzFixture) bookingWindow() (time.Time, time.Time) {
	start := time.Now().UTC().Truncate(time.Hour).Add(24*time.Hour + time.Duration(f.seq.Add(1))*time.Hour)
	return start, start.Add(time.Hour)
}

// bookingBody is the JSON of a fresh one-GPU booking.
func (f *authzFixture) bookingBody() (string, string) {
	s, e := f.bookingWindow()
	return "", fmt.Sprintf(`{"gpu_count":1,"starts_at":%q,"ends_at":%q}`, s.Format(time.RFC3339), e.Format(time.RFC3339))
}

// bookingForm is the calendar form of a fresh one-GPU booking.
func (f *authzFixture) bookingForm() (string, string) {
	s, e := f.bookingWindow()
	const form = "2006-01-02T15:04"
	return "", "gpu_count=1&starts_at=" + url.QueryEscape(s.Format(form)) + "&ends_at=" + url.QueryEscape(e.Format(form))
}

// bookingPath makes a fresh booking of member's for each request.
func bookingPath(format string) func(*authzFixture) (string, string) {
	return func(f *authzFixture) (string, string) {
		_, body := f.bookingBody()
		return fmt.Sprintf(format, f.api("POST", "/api/v1/bookings", body, 201)), ""
	}
}

// bookingPathBody is bookingPath that sends body (calendar).
func bookingPathBody(format, body string) func(*authzFixture) (string, string) {
	return func(f *authzFixture) (string, string) {
		p, _ := bookingPath(format)(f)
		return p, body
	}
}

// seriesBody is a fresh one-occurrence series (calendar).
func (f *authzFixture) seriesBody() (string, string) {
	s, e := f.bookingWindow()
	return "", fmt.Sprintf(`{"gpu_count":1,"first_day":%q,"last_day":%q,"start_time":%q,"end_time":%q}`,
		s.Format("2006-01-02"), s.Format("2006-01-02"), s.Format("15:04"), e.Format("15:04"))
}

// seriesForm is the page form of a fresh one-occurrence series (calendar).
func (f *authzFixture) seriesForm() (string, string) {
	s, e := f.bookingWindow()
	return "", url.Values{"gpu_count": {"1"}, "first_day": {s.Format("2006-01-02")}, "last_day": {s.Format("2006-01-02")},
		"start_time": {s.Format("15:04")}, "end_time": {e.Format("15:04")}, "time_zone": {"UTC"}}.Encode()
}

// seriesPath makes a fresh series of member's for each request (calendar).
func seriesPath(format string) func(*authzFixture) (string, string) {
	return func(f *authzFixture) (string, string) {
		_, body := f.seriesBody()
		st, b := f.s.Do(f.t, "POST", "/api/v1/bookings/series", f.tokens[member], body)
		if st != 201 {
			f.t.Fatalf("series: %d %s", st, b)
		}
		var out struct {
			SeriesID int64 `json:"series_id"`
		}
		mustJSON(f.t, b, &out)
		return fmt.Sprintf(format, out.SeriesID), ""
	}
}

// asset is a real hashed static path.
func asset(f *authzFixture) (string, string) { return f.s.Handlers.Asset("app.css"), "" }

// release makes a fresh allocation of member's and releases it.
func (f *authzFixture) release() (string, string) {
	id := f.api("POST", "/api/v1/cluster/gpu-allocate", `{"gpu_count":1,"timeout_s":0}`, 202)
	return "", fmt.Sprintf(`{"job_id":%d}`, id)
}

// hold makes a fresh hold of member's to cancel.
func (f *authzFixture) hold() (string, string) {
	return fmt.Sprintf("/api/v1/holds/%d", f.api("POST", "/api/v1/holds", `{"gpu_count":1}`, 202)), ""
}

// revoke makes a fresh token of member's to revoke.
func (f *authzFixture) revoke() (string, string) {
	_, tok, err := models.CreateUserToken(context.Background(), f.s.DB.Bun, f.ids[member], "to-revoke", nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return "/settings/tokens/" + tok.Prefix + "/revoke", ""
}

// userUpdate changes the other member's team to none (a no-op change).
func (f *authzFixture) userUpdate() (string, string) {
	return fmt.Sprintf("/admin/users/%d", f.ids[other]), "role=member&team_id="
}

// teamCreate creates a team with a fresh name.
func (f *authzFixture) teamCreate() (string, string) {
	return "", fmt.Sprintf("name=team-%d&weight=1", f.seq.Add(1))
}

// teamUpdate changes a fresh team's weight.
func (f *authzFixture) teamUpdate() (string, string) {
	t, err := models.CreateTeam(context.Background(), f.s.DB.Bun, fmt.Sprintf("upd-%d", f.seq.Add(1)), 1, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return fmt.Sprintf("/admin/teams/%d", t.ID), "weight=2&gpu_cap=4"
}

// registerGPUs registers node name with n GPUs through the node API.
func registerGPUs(t testing.TB, s *testserver.Server, name string, n int) {
	t.Helper()
	tok, _ := s.NodeToken(t, name)
	if st, b := s.Do(t, "POST", "/api/v1/nodes/register", tok, registerBodyFor(name, n)); st != http.StatusOK {
		t.Fatalf("register %s: %d %s", name, st, b)
	}
}

func mustURL(t testing.TB, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
