package jobs

import (
	"crypto/x509"
	"net/netip"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/netguard"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// NotifyConfig tunes the delivery of notifications.
type NotifyConfig struct {
	// BaseURL prefixes the pages' paths in messages (a button to the job).
	BaseURL string
	// AllowPrivateTargets lets webhooks and Slack URLs reach any address,
	// loopback and private ones included (dev and tests); off in production
	// against SSRF.
	AllowPrivateTargets bool
	// AllowNetworks are the networks beyond the public internet that
	// webhooks and Slack URLs may reach (GPUSCHED_NOTIFY_ALLOW_NETWORKS).
	AllowNetworks []netip.Prefix
	// Timeout bounds one delivery attempt (zero: 10 s).
	Timeout time.Duration
	// RetryBase is the first retry's delay, doubled each time (zero: 5 s).
	RetryBase time.Duration
	// IdleEvery is how often the idle policy runs (zero: 5 s).
	IdleEvery time.Duration
	// BookingLead is how long before a booking starts booking.starting goes (zero: 15 m).
	BookingLead time.Duration
	// WaitingLong is how long a job may wait before job.waiting_long (zero: 1 h).
	WaitingLong time.Duration
	// Secrets opens channels' sealed secrets and URLs (nil: stored in clear).
	Secrets *models.SecretBox
	// SMTP is the server-wide mail relay; without Addr, email channels are dead.
	SMTP SMTPConfig
}

// SMTPConfig is the mail relay (GPUSCHED_SMTP_*).
type SMTPConfig struct {
	Addr     string // host:port
	Username string
	Password string // from GPUSCHED_SMTP_PASSWORD or _FILE; never logged
	From     string
	// RequireTLS refuses to send when the server offers no STARTTLS.
	RequireTLS bool
	// RootCAs verify the relay's certificate (nil: the system's).
	RootCAs *x509.CertPool
}

// Targets is the policy webhook and Slack URLs are checked against, when a
// channel is saved and when a delivery connects.
func (c NotifyConfig) Targets() netguard.Policy {
	return netguard.Policy{AllowAll: c.AllowPrivateTargets, Allow: c.AllowNetworks}
}

func (c NotifyConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 10 * time.Second
}

func (c NotifyConfig) retryBase() time.Duration {
	if c.RetryBase > 0 {
		return c.RetryBase
	}
	return 5 * time.Second
}
