package jobs

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"html/template"
	"mime"
	"mime/multipart"
	"net"
	"net/smtp"
	"net/textproto"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// email sends the payload as a multipart (plain text + HTML) message through
// the configured relay: STARTTLS when offered (required with RequireTLS),
// then AUTH PLAIN when a username is set.
func (s *sender) email(ctx context.Context, ch *models.NotificationChannel, p *models.EventPayload) error {
	cfg := s.cfg.SMTP
	if cfg.Addr == "" {
		return permanent("email: no SMTP relay is configured (GPUSCHED_SMTP_ADDR)")
	}
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return permanent("email: bad SMTP address: %v", err)
	}
	msg, err := mailMessage(cfg.From, ch.Target, p)
	if err != nil {
		return permanent("email: %v", err)
	}
	d := net.Dialer{Timeout: s.cfg.timeout()}
	conn, err := d.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("email: connect to %s: %w", cfg.Addr, err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * s.cfg.timeout()))
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("email: greeting of %s: %w", cfg.Addr, err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host, RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12}); err != nil {
			return fmt.Errorf("email: STARTTLS with %s: %w", cfg.Addr, err)
		}
	} else if cfg.RequireTLS {
		return fmt.Errorf("email: %s offers no STARTTLS", cfg.Addr)
	}
	if cfg.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", cfg.Username, cfg.Password, host)); err != nil {
			return permanent("email: authentication with %s failed: %v", cfg.Addr, err)
		}
	}
	if err := c.Mail(addrOf(cfg.From)); err != nil {
		return fmt.Errorf("email: MAIL FROM: %w", err)
	}
	if err := c.Rcpt(ch.Target); err != nil {
		return permanent("email: RCPT TO %s: %v", ch.Target, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("email: DATA: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("email: write message: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("email: end message: %w", err)
	}
	return c.Quit()
}

// addrOf takes the address out of "Name <addr>".
func addrOf(from string) string {
	if i := strings.LastIndex(from, "<"); i >= 0 {
		return strings.TrimSuffix(from[i+1:], ">")
	}
	return from
}

var mailHTML = template.Must(template.New("mail").Parse(`<!doctype html><html><body style="font-family:sans-serif">
<h2>{{.Title}}</h2>
{{with .Job}}<table><tr><td><b>Job</b></td><td>{{.Name}} (#{{.ID}})</td></tr><tr><td><b>State</b></td><td>{{.State}}</td></tr>
<tr><td><b>GPUs</b></td><td>{{.GPUCount}} {{range .GPUs}}{{.}} {{end}}</td></tr><tr><td><b>Duration</b></td><td>{{.DurationS}} s</td></tr></table>{{end}}
{{with .Reason}}<p>{{.}}</p>{{end}}
{{with .URL}}<p><a href="{{.}}">Open in GPUScheduler</a></p>{{end}}
</body></html>`))

// mailMessage renders the RFC 5322 message with plain and HTML parts.
func mailMessage(from, to string, p *models.EventPayload) ([]byte, error) {
	var plain strings.Builder
	fmt.Fprintf(&plain, "%s\n\n", p.Title)
	if j := p.Job; j != nil {
		fmt.Fprintf(&plain, "Job: %s (#%d)\nState: %s\nGPUs: %d %s\nDuration: %s\n", j.Name, j.ID, j.State, j.GPUCount,
			strings.Join(j.GPUs, " "), time.Duration(j.DurationS)*time.Second)
	}
	if p.Reason != "" {
		fmt.Fprintf(&plain, "Reason: %s\n", p.Reason)
	}
	if p.URL != "" {
		fmt.Fprintf(&plain, "\n%s\n", p.URL)
	}
	var html bytes.Buffer
	if err := mailHTML.Execute(&html, p); err != nil {
		return nil, err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, part := range []struct{ ct, text string }{{"text/plain; charset=utf-8", plain.String()}, {"text/html; charset=utf-8", html.String()}} {
		w, err := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {part.ct}, "Content-Transfer-Encoding": {"8bit"}})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(strings.ReplaceAll(part.text, "\n", "\r\n"))); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	var msg bytes.Buffer
	fmt.Fprintf(&msg, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s@gpuscheduler>\r\n",
		from, to, mimeWord(p.Title), time.Now().UTC().Format(time.RFC1123Z), hex.EncodeToString(id))
	fmt.Fprintf(&msg, "X-GPUSched-Event: %s\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=%s\r\n\r\n", p.Event, mw.Boundary())
	msg.Write(body.Bytes())
	return msg.Bytes(), nil
}

func mimeWord(s string) string { return mime.QEncoding.Encode("utf-8", s) }
