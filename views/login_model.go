package views

import (
	"net/url"

	"github.com/a-h/templ"
)

// Login is the sign-in page: a button per identity provider, the dev form
// when it is on, and why the last attempt was refused.
type Login struct {
	Providers []LoginProvider
	Dev       *DevLogin // nil: no dev sign-in
	Next      string
	Error     string
	// NoAdmin is set while the server has no admin: the page says who
	// becomes one.
	NoAdmin bool
}

// LoginProvider is one identity provider's button.
type LoginProvider struct {
	Name, Label string
	// Unavailable says why the provider cannot take sign-ins now ("": it can).
	Unavailable string
}

// SignInURL is where the provider's button goes.
func (l Login) SignInURL(p LoginProvider) templ.SafeURL {
	u := "/auth/" + url.PathEscape(p.Name)
	if l.Next != "" && l.Next != "/" {
		u += "?next=" + url.QueryEscape(l.Next)
	}
	return templ.SafeURL(u)
}
