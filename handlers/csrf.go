package handlers

import "github.com/labstack/echo/v4"

// csrfToken is the request's CSRF token (set by the page group's CSRF
// middleware), for the hidden _csrf field of forms that must work without
// JavaScript; "" outside the page group.
func csrfToken(c echo.Context) string {
	tok, _ := c.Get("csrf").(string)
	return tok
}
