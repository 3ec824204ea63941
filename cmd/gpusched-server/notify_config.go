package main

import (
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/gpuscheduler/gpuscheduler/jobs"
)

// notifyConfig reads the notification settings (README "Notifications"):
// GPUSCHED_SMTP_ADDR (host:port), GPUSCHED_SMTP_USERNAME, GPUSCHED_SMTP_PASSWORD
// (secret, or GPUSCHED_SMTP_PASSWORD_FILE), GPUSCHED_SMTP_FROM,
// GPUSCHED_SMTP_REQUIRE_TLS (default true), GPUSCHED_SLACK_WEBHOOK_URL (the
// team channel, secret, or _FILE), GPUSCHED_NOTIFY_ALLOW_PRIVATE (webhooks
// to any address, loopback and private ones included; default true only in
// dev), GPUSCHED_NOTIFY_ALLOW_NETWORKS (networks beyond the public internet
// webhooks may reach, such as 10.20.0.0/16) and
// GPUSCHED_NOTIFY_TIMEOUT (one delivery attempt, default 10s),
// GPUSCHED_NOTIFY_BOOKING_LEAD (booking.starting, default 15m) and
// GPUSCHED_NOTIFY_WAITING_LONG (job.waiting_long, default 1h).
func notifyConfig(str func(flag, def string, vars ...string) string, dur func(string, time.Duration) time.Duration,
	getenv func(string) string, fail func(string, ...any), dev bool, baseURL string) (jobs.NotifyConfig, string) {
	nc := jobs.NotifyConfig{BaseURL: baseURL, Timeout: dur("GPUSCHED_NOTIFY_TIMEOUT", 10*time.Second),
		BookingLead: dur("GPUSCHED_NOTIFY_BOOKING_LEAD", 15*time.Minute), WaitingLong: dur("GPUSCHED_NOTIFY_WAITING_LONG", time.Hour),
		SMTP: jobs.SMTPConfig{
			Addr:     str("", "", "GPUSCHED_SMTP_ADDR"),
			Username: str("", "", "GPUSCHED_SMTP_USERNAME"),
			Password: str("", "", "GPUSCHED_SMTP_PASSWORD"),
			From:     str("", "GPUScheduler <gpusched@localhost>", "GPUSCHED_SMTP_FROM"),
		}}
	if nc.SMTP.Addr != "" {
		if _, _, err := net.SplitHostPort(nc.SMTP.Addr); err != nil {
			fail("GPUSCHED_SMTP_ADDR=%q must be host:port, e.g. smtp.example.com:587", nc.SMTP.Addr)
		}
	}
	var err error
	if nc.SMTP.RequireTLS, err = strconv.ParseBool(str("", "true", "GPUSCHED_SMTP_REQUIRE_TLS")); err != nil {
		fail("GPUSCHED_SMTP_REQUIRE_TLS must be true or false")
	}
	if nc.AllowPrivateTargets, err = strconv.ParseBool(str("", strconv.FormatBool(dev), "GPUSCHED_NOTIFY_ALLOW_PRIVATE")); err != nil {
		fail("GPUSCHED_NOTIFY_ALLOW_PRIVATE must be true or false")
	}
	nc.AllowNetworks = networks(getenv, "GPUSCHED_NOTIFY_ALLOW_NETWORKS", fail)
	slack := str("", "", "GPUSCHED_SLACK_WEBHOOK_URL")
	if slack != "" {
		if u, err := url.Parse(slack); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			fail("GPUSCHED_SLACK_WEBHOOK_URL must be an incoming-webhook URL like https://hooks.slack.com/services/…")
		}
	}
	return nc, slack
}
