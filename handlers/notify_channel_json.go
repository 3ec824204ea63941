package handlers

import (
	"crypto/rand"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// ChannelJSON is a notification channel in the API. Secret is only ever
// shown in the answer that created it.
type ChannelJSON struct {
	ID            int64     `json:"id"`
	Type          string    `json:"type"`
	URL           string    `json:"url,omitempty"`
	Address       string    `json:"address,omitempty"`
	Secret        string    `json:"secret,omitempty"`
	RatePerMinute int       `json:"rate_per_minute"`
	CreatedAt     time.Time `json:"created_at"`
}

// ChannelRequest is the body of POST /api/v1/notifications/channels.
type ChannelRequest struct {
	Type          string `json:"type"`
	URL           string `json:"url"`
	Address       string `json:"address"`
	Secret        string `json:"secret"`
	RatePerMinute int    `json:"rate_per_minute"`
}

func channelJSON(ch *models.NotificationChannel) ChannelJSON {
	out := ChannelJSON{ID: ch.ID, Type: ch.Type, RatePerMinute: ch.RatePerMinute, CreatedAt: ch.CreatedAt.UTC()}
	switch ch.Type {
	case models.KindEmail:
		out.Address = ch.Target
	case models.KindSlack:
		out.URL = redactURL(ch.Target) // a Slack webhook URL is itself a secret
	default:
		out.URL = ch.Target
	}
	return out
}

// redactURL keeps scheme, host and the first path segment.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	parts := strings.SplitN(strings.TrimPrefix(u.Path, "/"), "/", 2)
	return u.Scheme + "://" + u.Host + "/" + parts[0] + "/…"
}

// channelFrom checks a request and builds the channel, naming the bad field.
func (h *Handlers) channelFrom(b *ChannelRequest, userID int64) (*models.NotificationChannel, error) {
	ch := &models.NotificationChannel{UserID: &userID, Type: b.Type, Secret: b.Secret, RatePerMinute: b.RatePerMinute}
	if b.RatePerMinute < 0 || b.RatePerMinute > 600 {
		return nil, invalid("rate_per_minute", "must be between 1 and 600, got %d", b.RatePerMinute)
	}
	switch b.Type {
	case models.KindWebhook, models.KindSlack:
		if b.Address != "" {
			return nil, invalid("address", "only email channels have an address; send url")
		}
		if err := h.checkHookURL(b.URL); err != nil {
			return nil, err
		}
		ch.Target = b.URL
		if b.Type == models.KindSlack && b.Secret != "" {
			return nil, invalid("secret", "Slack channels have no secret: the URL is the secret")
		}
		if b.Type == models.KindWebhook && ch.Secret == "" {
			ch.Secret = rand.Text()
		}
		if len(ch.Secret) > 256 {
			return nil, invalid("secret", "must be at most 256 characters")
		}
	case models.KindEmail:
		if b.URL != "" || b.Secret != "" {
			return nil, invalid("url", "email channels take only an address")
		}
		a, err := mail.ParseAddress(b.Address)
		if err != nil || a.Address != b.Address {
			return nil, invalid("address", "must be an email address like ada@example.com, got %q", b.Address)
		}
		ch.Target = a.Address
	default:
		return nil, invalid("type", `must be "webhook", "slack" or "email", got %q`, b.Type)
	}
	return ch, nil
}

// checkHookURL refuses what is not http(s), and, unless the server allows
// every address, plain http and hosts outside the public internet and the
// networks the admin allowed (netguard: zoned, mapped, private, loopback,
// link-local and localhost names included). The delivery's dialer checks
// the resolved address again.
func (h *Handlers) checkHookURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(s) > 2048 {
		return invalid("url", "must be an http(s) URL, got %q", s)
	}
	if u.User != nil {
		return invalid("url", "must not carry a user name or password")
	}
	policy := h.Config.NotifyTargets
	if u.Scheme != "https" && !policy.AllowAll {
		return invalid("url", "must use https")
	}
	if policy.CheckHost(u.Hostname()) != nil {
		return invalid("url", "must name a public host: this server does not call loopback, private or link-local addresses")
	}
	return nil
}

// sealed seals ch's secret and, for Slack, its URL (itself a secret) in
// place before it is stored, and returns ch.
func (h *Handlers) sealed(ch *models.NotificationChannel) *models.NotificationChannel {
	ch.Secret = h.Secrets.Seal(ch.Secret)
	if ch.Type == models.KindSlack {
		ch.Target = h.Secrets.Seal(ch.Target)
	}
	return ch
}

// opened returns ch with its secrets opened for display; one this server
// cannot open shows as "(sealed)".
func (h *Handlers) opened(ch *models.NotificationChannel) *models.NotificationChannel {
	out, err := h.Secrets.Opened(ch)
	if err != nil {
		o := *ch
		o.Target, o.Secret = "(sealed)", ""
		return &o
	}
	return out
}
