package lighthttp

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// proxyTo is a Client.Proxy that sends every request through raw.
func proxyTo(t *testing.T, raw string) func(*url.URL) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return func(*url.URL) (*url.URL, error) { return u, nil }
}

// basic is the Proxy-Authorization value of user and password.
func basic(user, pw string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pw))
}

// TestHTTPProxy proves that an http request goes to the proxy (plain or
// TLS) in absolute form, naming the origin as Host, with Basic
// Proxy-Authorization when the proxy URL holds a user.
func TestHTTPProxy(t *testing.T) {
	t.Parallel()
	type seenByProxy struct{ Method, RequestURI, Host, Auth string }
	tests := map[string]struct {
		tlsProxy bool
		user     *url.Userinfo
		wantAuth string
	}{
		"plain":           {},
		"with a password": {user: url.UserPassword("alice", "s3cret:x"), wantAuth: basic("alice", "s3cret:x")},
		"TLS with a user": {tlsProxy: true, user: url.User("bob"), wantAuth: basic("bob", "")},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := make(chan seenByProxy, 1)
			proxy, _ := countingServer(t, tt.tlsProxy, func(w http.ResponseWriter, r *http.Request) {
				got <- seenByProxy{r.Method, r.RequestURI, r.Host, r.Header.Get("Proxy-Authorization")}
				_, _ = io.WriteString(w, "via proxy")
			})
			pu, _ := url.Parse(proxy.URL)
			pu.User = tt.user
			c := &Client{Proxy: proxyTo(t, pu.String())}
			if tt.tlsProxy {
				pool := x509.NewCertPool()
				pool.AddCert(proxy.Certificate())
				c.TLSConfig = &tls.Config{RootCAs: pool}
			}
			t.Cleanup(c.CloseIdle)
			const target = "http://api.example.invalid:8080/v1/jobs?state=queued"
			resp, err := get(t, c, target)
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Body) != "via proxy" {
				t.Errorf("body %q", resp.Body)
			}
			want := seenByProxy{"GET", target, "api.example.invalid:8080", tt.wantAuth}
			if diff := cmp.Diff(want, <-got); diff != "" {
				t.Errorf("proxy saw (-want +got):\n%s", diff)
			}
		})
	}
}

// connectProxy starts a CONNECT proxy that sends each tunnel's head to
// heads and answers it with answer: when that is a 2xx, it then carries
// bytes both ways between the client and the target.
func connectProxy(t *testing.T, answer string, heads chan<- []string) string {
	addr, _ := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		head, err := readHead(br)
		heads <- head
		if err != nil || len(head) == 0 {
			return
		}
		if _, err := io.WriteString(c, answer); err != nil || !strings.HasPrefix(answer, "HTTP/1.1 2") {
			return
		}
		up, err := net.Dial("tcp", strings.Fields(head[0])[1])
		if err != nil {
			return
		}
		defer up.Close()
		var wg sync.WaitGroup
		wg.Go(func() {
			_, _ = io.Copy(up, br)
			_ = up.(*net.TCPConn).CloseWrite()
		})
		_, _ = io.Copy(c, up)
		wg.Wait()
	})
	return addr
}

// TestConnectProxy proves that an https request goes through a CONNECT
// tunnel naming the origin, with the proxy's credentials, and that TLS
// with the origin then runs inside it.
func TestConnectProxy(t *testing.T) {
	t.Parallel()
	origin, _ := countingServer(t, true, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "through "+r.RequestURI)
	})
	heads := make(chan []string, 1)
	proxy := connectProxy(t, "HTTP/1.1 200 Connection established\r\n\r\n", heads)
	pool := x509.NewCertPool()
	pool.AddCert(origin.Certificate())
	c := &Client{TLSConfig: &tls.Config{RootCAs: pool}, Proxy: proxyTo(t, "http://carol:pw@"+proxy)}
	t.Cleanup(c.CloseIdle)

	resp, err := get(t, c, origin.URL+"/v1/nodes")
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "through /v1/nodes" {
		t.Errorf("body %q", resp.Body)
	}
	target := strings.TrimPrefix(origin.URL, "https://")
	want := []string{"CONNECT " + target + " HTTP/1.1", "Host: " + target, "Proxy-Authorization: " + basic("carol", "pw")}
	if diff := cmp.Diff(want, <-heads); diff != "" {
		t.Errorf("CONNECT head (-want +got):\n%s", diff)
	}
}

// TestProxyErrors proves that a proxy refusing CONNECT, or a Proxy
// function failing, gives an error naming the cause and not the proxy's
// password.
func TestProxyErrors(t *testing.T) {
	t.Parallel()
	heads := make(chan []string, 1)
	proxy := connectProxy(t, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 3\r\n\r\nno\n", heads)
	errNoProxy := errors.New("no proxy today")
	tests := map[string]struct {
		proxy   func(*url.URL) (*url.URL, error)
		wantIs  error
		wantMsg string
	}{
		"407 to CONNECT": {
			proxy:   proxyTo(t, "http://dave:hunter2@"+proxy),
			wantMsg: "407 Proxy Authentication Required",
		},
		"Proxy function fails": {
			proxy:   func(*url.URL) (*url.URL, error) { return nil, errNoProxy },
			wantIs:  errNoProxy,
			wantMsg: "proxy: no proxy today",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := get(t, &Client{Proxy: tt.proxy}, "https://api.example.invalid/v1/jobs")
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.wantMsg) || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q, want it to hold %q and no password", err, tt.wantMsg)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
		})
	}
}
