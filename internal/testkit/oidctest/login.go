package oidctest

import (
	"context"
	"html/template"
	"net/http"

	"github.com/zitadel/oidc/v3/pkg/op"
)

// loginPage is the provider's sign-in form (the shape of zitadel's example:
// the auth request id hidden, username and password).
var loginPage = template.Must(template.New("login").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head>
<body>
<form method="POST" action="/login/username">
<input type="hidden" name="id" value="{{.ID}}">
<label for="username">Username</label> <input id="username" name="username" autocomplete="username">
<label for="password">Password</label> <input id="password" name="password" type="password">
<p id="error">{{.Error}}</p>
<button type="submit">Sign in</button>
</form>
</body></html>`))

// checker checks a password for an auth request and marks it done.
type checker interface {
	CheckUsernamePassword(username, password, id string) error
}

// login serves GET and POST /login/username: the form, then on success a
// redirect to the provider's callback, which issues the code.
type login struct {
	check    checker
	callback func(ctx context.Context, id string) string
	post     http.Handler
}

func newLogin(c checker, callback func(context.Context, string) string, issuer *op.IssuerInterceptor) *login {
	l := &login{check: c, callback: callback}
	l.post = issuer.HandlerFunc(l.submit)
	return l
}

func (l *login) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		l.render(w, r.URL.Query().Get("authRequestID"), "")
	case http.MethodPost:
		l.post.ServeHTTP(w, r)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (l *login) submit(w http.ResponseWriter, r *http.Request) {
	id := r.FormValue("id")
	if err := l.check.CheckUsernamePassword(r.FormValue("username"), r.FormValue("password"), id); err != nil {
		w.WriteHeader(http.StatusUnauthorized)
		l.render(w, id, err.Error())
		return
	}
	http.Redirect(w, r, l.callback(r.Context(), id), http.StatusFound)
}

func (l *login) render(w http.ResponseWriter, id, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = loginPage.Execute(w, struct{ ID, Error string }{id, msg})
}
