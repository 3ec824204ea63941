package lighthttp

import (
	"errors"
	"net/url"
	"sync"

	"golang.org/x/net/http/httpproxy"
)

// errUnsupportedProxy is a proxy URL whose scheme is not http or https.
var errUnsupportedProxy = errors.New("unsupported proxy scheme (want http or https)")

// envProxy is the proxy function of the environment, read once.
var envProxy = sync.OnceValue(func() func(*url.URL) (*url.URL, error) {
	return httpproxy.FromEnvironment().ProxyFunc()
})

// ProxyFromEnvironment returns the proxy for u that HTTP_PROXY, HTTPS_PROXY
// and NO_PROXY (or their lower-case forms) name, as net/http reads them:
// none for loopback addresses, an http or https proxy otherwise.
func ProxyFromEnvironment(u *url.URL) (*url.URL, error) {
	p, err := envProxy()(u)
	if err != nil || p == nil {
		return nil, err
	}
	if p.Scheme != "http" && p.Scheme != "https" {
		return nil, &url.Error{Op: "proxy", URL: p.Redacted(), Err: errUnsupportedProxy}
	}
	return p, nil
}
