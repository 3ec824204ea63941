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

	"github.com/gpuscheduler/gpuscheduler/internal/netguard"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sender sends a payload over a channel of any type.
type sender struct {
	cfg  NotifyConfig
	http *http.Client
}

func newSender(cfg NotifyConfig) *sender {
	dialer := &net.Dialer{Timeout: cfg.timeout()}
	tr := &http.Transport{DialContext: cfg.Targets().DialContext(dialer), TLSHandshakeTimeout: cfg.timeout(),
		ResponseHeaderTimeout: cfg.timeout(), MaxIdleConnsPerHost: 4}
	return &sender{cfg: cfg, http: &http.Client{Transport: tr, Timeout: cfg.timeout(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// unreachable is what a member sees of a delivery that did not connect,
// whatever the reason (a refused address, a closed port, a timeout, a TLS
// failure): the same sentence, so that channels cannot map the networks
// around the server. The cause goes to the server's log.
type unreachable struct {
	host  string
	cause error
}

func (e unreachable) Error() string {
	return fmt.Sprintf("jobs: POST to %s: could not connect (unreachable, or not an address this server calls)", e.host)
}

func (e unreachable) Unwrap() error { return e.cause }

// Cause returns the detail of a delivery failure for the server's log: the
// network error behind a generic "could not connect", else err itself.
func Cause(err error) error {
	var u unreachable
	if errors.As(err, &u) {
		return u.cause
	}
	return err
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
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may be a secret
		}
		if errors.Is(err, netguard.ErrRefused) {
			return permanentError{unreachable{u.Host, err}}
		}
		return unreachable{u.Host, err}
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
