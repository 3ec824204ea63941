package jobs

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// Headers of a generic webhook delivery (README "Notifications" tells
// receivers how to check them).
const (
	HeaderEvent     = "X-GPUSched-Event"
	HeaderDelivery  = "X-GPUSched-Delivery"
	HeaderSignature = "X-GPUSched-Signature"
)

// WebhookSignature is the X-GPUSched-Signature value of body under secret:
// "sha256=" and the hex HMAC-SHA256. Receivers compute the same over the raw
// body and compare in constant time.
func WebhookSignature(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// webhook POSTs the payload as JSON, signed with the channel's secret.
func (s *sender) webhook(ctx context.Context, ch *models.NotificationChannel, p *models.EventPayload) error {
	body, err := json.Marshal(p)
	if err != nil {
		return permanent("jobs: encode %s: %v", p.Event, err)
	}
	h := http.Header{}
	h.Set(HeaderEvent, p.Event)
	h.Set(HeaderDelivery, strconv.FormatInt(p.DeliveryID, 10))
	if ch.Secret != "" {
		h.Set(HeaderSignature, WebhookSignature(ch.Secret, body))
	}
	if err := s.post(ctx, ch.Target, body, h); err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	return nil
}
