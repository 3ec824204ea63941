package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// sender sends a payload over a channel of any type.
type sender struct {
	cfg  NotifyConfig
	http *http.Client
}

func newSender(cfg NotifyConfig) *sender {
	dialer := &net.Dialer{Timeout: cfg.timeout()}
	if !cfg.AllowPrivateTargets {
		dialer.Control = refusePrivate
	}
	tr := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: cfg.timeout(),
		ResponseHeaderTimeout: cfg.timeout(), MaxIdleConnsPerHost: 4}
	return &sender{cfg: cfg, http: &http.Client{Transport: tr, Timeout: cfg.timeout(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// ErrPrivateTarget is returned for a webhook address on loopback or
// link-local networks while they are not allowed.
var ErrPrivateTarget = errors.New("address is loopback or link-local")

// refusePrivate is the dialer's check, run on the resolved address so a
// name that resolves to 127.0.0.1 or the metadata service is refused too.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip != nil && PrivateIP(ip) {
		return permanentError{fmt.Errorf("jobs: refused %s: %w", host, ErrPrivateTarget)}
	}
	return nil
}

// PrivateIP reports whether ip is one webhooks may not reach in production:
// loopback, link-local (cloud metadata) or unspecified.
func PrivateIP(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified()
}

func (s *sender) send(ctx context.Context, ch *models.NotificationChannel, p *models.EventPayload) error {
	switch ch.Type {
	case models.KindWebhook:
		return s.webhook(ctx, ch, p)
	case models.KindSlack:
		return s.slack(ctx, ch, p)
	case models.KindEmail:
		return s.email(ctx, ch, p)
	}
	return permanent("jobs: unknown channel type %q", ch.Type)
}

// post sends body and classifies the answer: 2xx is done; 429, 5xx and
// network errors may be retried; other answers are permanent. Errors name
// only the host, never the URL (a Slack URL is itself a secret).
func (s *sender) post(ctx context.Context, target string, body []byte, header http.Header) error {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return permanent("jobs: channel address is not an http(s) URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return permanent("jobs: request to %s: %v", u.Host, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GPUScheduler-Notify/1")
	resp, err := s.http.Do(req)
	if err != nil {
		var perm permanentError
		if errors.As(err, &perm) {
			return perm
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("jobs: POST to %s: %v", u.Host, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("jobs: POST to %s: %s", u.Host, resp.Status)
	}
	return permanent("jobs: POST to %s: %s", u.Host, resp.Status)
}
