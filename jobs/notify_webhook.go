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
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// Headers of a generic webhook delivery (README "Notifications" tells
// receivers how to check them).
const (
	HeaderEvent     = "X-GPUSched-Event"
	HeaderDelivery  = "X-GPUSched-Delivery"
	HeaderTimestamp = "X-GPUSched-Timestamp"
	// HeaderSignatureV2 signs the timestamp with the body: what receivers
	// check, with the timestamp's age and the delivery id, against replays.
	HeaderSignatureV2 = "X-GPUSched-Signature-V2"
	// HeaderSignature signs the body alone. Deprecated: kept for one
	// release for receivers that check it today; check HeaderSignatureV2.
	HeaderSignature = "X-GPUSched-Signature"
)

// WebhookSignature is the X-GPUSched-Signature value of body under secret:
// "sha256=" and the hex HMAC-SHA256 of the body. Deprecated: it does not
// cover the time, so a captured delivery can be replayed; use
// WebhookSignatureV2.
func WebhookSignature(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// WebhookSignatureV2 is the X-GPUSched-Signature-V2 value of a delivery
// sent at timestamp (X-GPUSched-Timestamp, Unix seconds): "sha256=" and the
// hex HMAC-SHA256, under secret, of the timestamp's decimal digits, ".",
// and the raw body. Receivers compute the same, compare in constant time,
// refuse a timestamp more than 5 minutes from their clock and a delivery
// id they have already seen.
func WebhookSignatureV2(secret string, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(timestamp, 10)))
	m.Write([]byte("."))
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
	ts := time.Now().Unix() // each attempt's own: a retry is not a replay
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	if ch.Secret != "" {
		h.Set(HeaderSignatureV2, WebhookSignatureV2(ch.Secret, ts, body))
		h.Set(HeaderSignature, WebhookSignature(ch.Secret, body))
	}
	if err := s.post(ctx, ch.Target, body, h); err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	return nil
}
