package web_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/gpuscheduler/gpuscheduler/jobs"
)

// mail is one message the test SMTP server accepted.
type mail struct {
	From, To, User string
	TLS            bool
	Data           []byte
}

// smtpSink is a real SMTP server (emersion/go-smtp) offering STARTTLS with a
// self-signed certificate and AUTH PLAIN for one user.
type smtpSink struct {
	Addr  string
	Roots *x509.CertPool
	got   chan mail
}

func newSMTPSink(t *testing.T, user, pass string) *smtpSink {
	t.Helper()
	cert, roots := selfSigned(t)
	sink := &smtpSink{Roots: roots, got: make(chan mail, 16)}
	be := smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &smtpSession{sink: sink, conn: c, user: user, pass: pass}, nil
	})
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sink.Addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return sink
}

type smtpSession struct {
	sink       *smtpSink
	conn       *smtp.Conn
	user, pass string
	authed     string
	m          mail
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != s.user || password != s.pass {
			return errors.New("bad credentials")
		}
		s.authed = username
		return nil
	}), nil
}
func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.authed == "" {
		return smtp.ErrAuthRequired
	}
	s.m = mail{From: from, User: s.authed}
	_, s.m.TLS = s.conn.TLSConnectionState()
	return nil
}
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error { s.m.To = to; return nil }
func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.m.Data = b
	s.sink.got <- s.m
	return nil
}
func (s *smtpSession) Reset()        {}
func (s *smtpSession) Logout() error { return nil }

func (s *smtpSink) next(t *testing.T, within time.Duration) mail {
	t.Helper()
	select {
	case m := <-s.got:
		return m
	case <-time.After(within):
		t.Fatalf("no mail within %s", within)
	}
	return mail{}
}

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "smtp test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// slackReceiver is a Slack-shaped receiver: it answers "ok" like Slack's
// incoming webhooks and hands over each message it could decode.
func slackReceiver(t *testing.T) (*httptest.Server, chan jobs.SlackMessage) {
	got := make(chan jobs.SlackMessage, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m jobs.SlackMessage
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if r.Header.Get("Content-Type") != "application/json" || dec.Decode(&m) != nil {
			http.Error(w, "invalid_payload", http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "ok")
		got <- m
	}))
	t.Cleanup(srv.Close)
	return srv, got
}
