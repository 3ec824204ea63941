package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// SlackMessage is the body of a Slack incoming-webhook POST: a fallback
// text and Block Kit blocks.
type SlackMessage struct {
	Text   string       `json:"text"`
	Blocks []SlackBlock `json:"blocks"`
}

// SlackBlock is one Block Kit block (header, section, actions).
type SlackBlock struct {
	Type     string         `json:"type"`
	Text     *SlackText     `json:"text,omitempty"`
	Fields   []SlackText    `json:"fields,omitempty"`
	Elements []SlackElement `json:"elements,omitempty"`
}

// SlackText is a Block Kit text object.
type SlackText struct {
	Type string `json:"type"` // plain_text | mrkdwn
	Text string `json:"text"`
}

// SlackElement is a Block Kit button.
type SlackElement struct {
	Type     string    `json:"type"` // button
	Text     SlackText `json:"text"`
	URL      string    `json:"url"`
	ActionID string    `json:"action_id"`
}

// SlackMessageOf builds the message of a payload: the title as header; the
// job's name, state, GPUs and duration (or the booking's or node's facts)
// as fields, each a bold label beside its value; the reason; a button to
// the page. Every value that may hold a user's text (names, reasons, the
// title) goes in plain_text, which Slack never parses for mentions or
// links; the one mrkdwn text of user text, the notification's fallback,
// has & < > escaped, so a job named "<!channel>" or holding a disguised
// link pings nobody and links nowhere.
func SlackMessageOf(p *models.EventPayload) SlackMessage {
	var fields []SlackText
	field := func(k, v string) {
		fields = append(fields, SlackText{"mrkdwn", "*" + k + "*"}, SlackText{"plain_text", orDash(v)})
	}
	switch {
	case p.Job != nil:
		field("Job", p.Job.Name)
		field("State", p.Job.State)
		gpus := fmt.Sprintf("%d", p.Job.GPUCount)
		if len(p.Job.GPUs) > 0 {
			gpus += " (" + strings.Join(p.Job.GPUs, ", ") + ")"
		}
		field("GPUs", gpus)
		field("Duration", (time.Duration(p.Job.DurationS) * time.Second).String())
	case p.Booking != nil:
		field("Booking", fmt.Sprintf("#%d by %s", p.Booking.ID, p.Booking.Owner))
		field("GPUs", fmt.Sprintf("%d", p.Booking.GPUCount))
		field("Window", localtime.Window(p.Booking.StartsAt, p.Booking.EndsAt, p.Zone()))
	case p.Node != nil:
		field("Node", p.Node.Name)
	}
	blocks := []SlackBlock{{Type: "header", Text: &SlackText{"plain_text", orDash(p.Title)}}}
	if len(fields) > 0 {
		blocks = append(blocks, SlackBlock{Type: "section", Fields: fields})
	}
	if p.Reason != "" {
		blocks = append(blocks, SlackBlock{Type: "section", Text: &SlackText{"plain_text", "Reason: " + p.Reason}})
	}
	if p.URL != "" {
		blocks = append(blocks, SlackBlock{Type: "actions", Elements: []SlackElement{{
			Type: "button", Text: SlackText{"plain_text", "Open in GPUScheduler"}, URL: p.URL, ActionID: "open"}}})
	}
	return SlackMessage{Text: SlackEscape(fmt.Sprintf("%s (%s)", p.Title, p.Event)), Blocks: blocks}
}

// SlackEscape escapes what Slack's mrkdwn reads as markup: & < > (the
// brackets open mentions such as <!channel> and links such as
// <https://…|text>).
func SlackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// orDash is s, or "–" for an empty value (Slack refuses empty text).
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "–"
	}
	return s
}

// slack POSTs the Block Kit message to the channel's incoming-webhook URL.
func (s *sender) slack(ctx context.Context, ch *models.NotificationChannel, p *models.EventPayload) error {
	body, err := json.Marshal(SlackMessageOf(p))
	if err != nil {
		return permanent("jobs: encode slack message: %v", err)
	}
	if err := s.post(ctx, ch.Target, body, nil); err != nil {
		return fmt.Errorf("slack: %w", err)
	}
	return nil
}
