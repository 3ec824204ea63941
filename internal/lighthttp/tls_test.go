package lighthttp

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestTLS proves that an https request is answered when the server's
// certificate is trusted through Client.TLSConfig, reuses its connection,
// and fails with a TLS error under the system's roots alone.
func TestTLS(t *testing.T) {
	t.Parallel()
	srv, conns := countingServer(t, true, func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || r.ProtoMajor != 1 {
			http.Error(w, "want HTTP/1.1 over TLS, got "+r.Proto, http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "secret")
	})
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())

	t.Run("trusted", func(t *testing.T) {
		c := &Client{TLSConfig: &tls.Config{RootCAs: pool}}
		t.Cleanup(c.CloseIdle)
		for range 2 {
			resp, err := get(t, c, srv.URL+"/x")
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 200 || string(resp.Body) != "secret" {
				t.Fatalf("answer %s %q", resp.Status, resp.Body)
			}
		}
		if n := conns.Load(); n != 1 {
			t.Errorf("%d connections, want 1", n)
		}
	})
	t.Run("system roots", func(t *testing.T) {
		_, err := get(t, &Client{}, srv.URL+"/x")
		if err == nil || !strings.Contains(err.Error(), "TLS") {
			t.Fatalf("error %v, want a TLS error", err)
		}
	})
}
