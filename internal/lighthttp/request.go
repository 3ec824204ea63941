package lighthttp

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
)

// validRequest rejects a method or header that would break the request's
// framing: a name that is not a token, a value with CR, LF or NUL.
func validRequest(req *Request) error {
	if req.Method == "" || !isToken(req.Method) {
		return fmt.Errorf("invalid method %q", req.Method)
	}
	for k, v := range req.Header {
		if !isToken(k) {
			return fmt.Errorf("invalid header name %q", k)
		}
		for i := 0; i < len(v); i++ {
			if b := v[i]; b == '\r' || b == '\n' || b == 0 {
				return fmt.Errorf("invalid value of header %s: it holds a line break or NUL", k)
			}
		}
	}
	return nil
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		case b == '!' || b == '#' || b == '$' || b == '%' || b == '&' || b == '\'' || b == '*' ||
			b == '+' || b == '-' || b == '.' || b == '^' || b == '_' || b == '`' || b == '|' || b == '~':
		default:
			return false
		}
	}
	return true
}

// appendRequest appends req's bytes: request line for target, Host, the
// header fields in name order, Content-Length, Proxy-Authorization when an
// http request goes through a proxy with a user, and Connection: close
// unless the connection is to be kept.
func appendRequest(b []byte, req *Request, target, host string, proxy *url.URL, plain, keep bool) []byte {
	b = append(b, req.Method...)
	b = append(b, ' ')
	b = append(b, target...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\n"...)
	names := make([]string, 0, len(req.Header))
	for k, v := range req.Header {
		if v != "" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		b = append(b, k...)
		b = append(b, ": "...)
		b = append(b, req.Header[k]...)
		b = append(b, "\r\n"...)
	}
	if req.Body != nil || req.Method == "POST" || req.Method == "PUT" || req.Method == "PATCH" {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(req.Body)), 10)
		b = append(b, "\r\n"...)
	}
	if plain {
		if auth := proxyAuth(proxy); auth != "" {
			b = append(b, "Proxy-Authorization: "...)
			b = append(b, auth...)
			b = append(b, "\r\n"...)
		}
	}
	if !keep {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, "\r\n"...)
	return append(b, req.Body...)
}
