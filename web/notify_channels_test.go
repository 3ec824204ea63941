package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// One job end reaches the owner as an email through a real SMTP server
// (STARTTLS, AUTH, multipart plain + HTML) and as a Block Kit message to a
// Slack-shaped receiver.
func TestNotifyEmailAndSlack(t *testing.T) {
	t.Parallel()
	sink := newSMTPSink(t, "relay-user", "relay-pass")
	s := testserver.NewWith(t, testserver.Options{Setup: func(d *jobs.Deps) {
		d.Config.Notify.BaseURL = "https://gpus.example"
		d.Config.Notify.SMTP = jobs.SMTPConfig{Addr: sink.Addr, Username: "relay-user", Password: "relay-pass",
			From: "GPUScheduler <gpusched@example.com>", RequireTLS: true, RootCAs: sink.Roots}
	}})
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(8)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	slack, slackGot := slackReceiver(t)
	addChannel(t, s, tok, `{"type":"email","address":"ada@example.com"}`)
	addChannel(t, s, tok, `{"type":"slack","url":"`+slack.URL+`/services/T0/B0/secretpart"}`)

	if st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"job_id":"bert","gpu_count":2,"timeout_s":20}`); st != 200 {
		t.Fatalf("allocate: %d %s", st, b)
	}
	if st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-release", tok, `{"job_id":"bert"}`); st != 200 {
		t.Fatalf("release: %d %s", st, b)
	}

	m := sink.next(t, 5*time.Second)
	body := string(m.Data)
	for _, want := range []string{"Subject: Job bert finished", "multipart/alternative", "text/plain", "text/html",
		"https://gpus.example/jobs/", "X-GPUSched-Event: job.finished"} {
		if !strings.Contains(body, want) {
			t.Errorf("mail lacks %q:\n%s", want, body)
		}
	}
	if !m.TLS || m.User != "relay-user" || m.To != "ada@example.com" || m.From != "gpusched@example.com" {
		t.Errorf("envelope %+v (TLS %v)", m, m.TLS)
	}

	select {
	case msg := <-slackGot:
		if msg.Blocks[0].Type != "header" || msg.Blocks[0].Text.Text != "Job bert finished" {
			t.Fatalf("header %+v", msg.Blocks[0])
		}
		var fields []string
		for _, f := range msg.Blocks[1].Fields {
			fields = append(fields, f.Type+":"+f.Text)
		}
		joined := strings.Join(fields, "|")
		for _, want := range []string{"mrkdwn:*Job*|plain_text:bert", "*State*|plain_text:completed", "*GPUs*|plain_text:2 (gpu-a:", "*Duration*|plain_text:"} {
			if !strings.Contains(joined, want) {
				t.Errorf("fields lack %q: %q", want, joined)
			}
		}
		if b := msg.Blocks[len(msg.Blocks)-1]; b.Type != "actions" || !strings.HasPrefix(b.Elements[0].URL, "https://gpus.example/jobs/") {
			t.Errorf("button %+v", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no Slack message")
	}
	// The Slack URL is a secret: the API shows it redacted.
	if _, b := s.Do(t, "GET", "/api/v1/notifications/channels", tok, ""); strings.Contains(string(b), "secretpart") {
		t.Fatalf("slack URL shown in full: %s", b)
	}
}

// A notification committed while no worker runs (the server died between
// commit and delivery) is delivered once a new River client starts.
func TestNotifyDeliveredAfterRestart(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	tok, _ := s.UserToken(t, models.RoleMember)
	recv := newWebhookReceiver(t, func(int32) int { return 200 })
	ch := addChannel(t, s, tok, `{"type":"webhook","url":"`+recv.URL+`"}`)
	recv.secret.Store(ch.Secret)
	if st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"job_id":"r","gpu_count":1,"timeout_s":20}`); st != 200 {
		t.Fatalf("allocate: %d %s", st, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Deps.River.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-release", tok, `{"job_id":"r"}`); st != 200 {
		t.Fatalf("release: %d %s", st, b)
	}
	select {
	case rec := <-recv.got:
		t.Fatalf("delivered with no worker running: %+v", rec)
	case <-time.After(500 * time.Millisecond):
	}
	client, err := jobs.NewClient(s.Deps)
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(stop)
	})
	if rec := recv.next(t, models.EventJobFinished, 5*time.Second); !rec.SignatureOK {
		t.Fatal("bad signature after restart")
	}
}
