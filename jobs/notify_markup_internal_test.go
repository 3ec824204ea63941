package jobs

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// hostilePayload is a notification about a job whose name, owner and
// reason are crafted markup: a Slack mention, a disguised link, HTML.
func hostilePayload() *models.EventPayload {
	name := `<!channel> <https://evil.example/login|Open in GPUScheduler> & <script>alert(1)</script> *x*`
	return &models.EventPayload{Event: models.EventJobFailed, DeliveryID: 7, OccurredAt: time.Now().UTC(),
		Title: "Job " + name + " failed", Reason: "<!here> see <https://evil.example|the logs> & <@U0123>",
		URL: "https://gpus.example/jobs/1", Path: "/jobs/1",
		Job: &models.EventJob{ID: 1, Name: name, State: models.JobFailed, Owner: "<!everyone>", GPUCount: 1, GPUs: []string{"gpu-a:0"}}}
}

// Slack: user text appears only in plain_text, which Slack never parses,
// or escaped in mrkdwn; no mrkdwn text holds a bracket that could open a
// mention or a link.
func TestSlackMessageEscapesUserText(t *testing.T) {
	t.Parallel()
	msg := SlackMessageOf(hostilePayload())
	var texts []SlackText
	texts = append(texts, SlackText{"mrkdwn", msg.Text}) // the fallback is mrkdwn
	for _, b := range msg.Blocks {
		if b.Text != nil {
			texts = append(texts, *b.Text)
		}
		texts = append(texts, b.Fields...)
		for _, e := range b.Elements {
			texts = append(texts, e.Text)
		}
	}
	sawName := false
	for _, tx := range texts {
		switch tx.Type {
		case "mrkdwn":
			if strings.ContainsAny(tx.Text, "<>") || strings.Contains(strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(tx.Text, "&amp;", ""), "&lt;", ""), "&gt;", ""), "&") {
				t.Errorf("mrkdwn text holds markup: %q", tx.Text)
			}
		case "plain_text":
			sawName = sawName || strings.Contains(tx.Text, "<!channel> <https://evil.example/login|")
		default:
			t.Errorf("text of type %q", tx.Type)
		}
	}
	if !sawName {
		t.Errorf("the job's name is not shown as it is, in plain text: %+v", msg)
	}
	if want := "Job &lt;!channel&gt; &lt;https://evil.example/login|Open in GPUScheduler&gt; &amp; "; !strings.HasPrefix(msg.Text, want) {
		t.Errorf("fallback %q, want it to start %q", msg.Text, want)
	}
}

// Mail: the HTML part escapes the markup; the subject is one encoded
// header line.
func TestMailEscapesUserText(t *testing.T) {
	t.Parallel()
	raw, err := mailMessage("GPUScheduler <g@example.com>", "ada@example.com", hostilePayload())
	if err != nil {
		t.Fatal(err)
	}
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the message does not parse: %v\n%s", err, raw)
	}
	if subj, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject")); err != nil || !strings.Contains(subj, "<!channel>") {
		t.Errorf("subject %q (%v)", subj, err)
	}
	_, params, _ := mime.ParseMediaType(m.Header.Get("Content-Type"))
	mr := multipart.NewReader(m.Body, params["boundary"])
	var html string
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		if strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
			html = string(b)
		}
	}
	for _, bad := range []string{"<script>", "<!channel>", "<!here>", "<https://evil"} {
		if strings.Contains(html, bad) {
			t.Errorf("the HTML part holds %q unescaped:\n%s", bad, html)
		}
	}
	if !strings.Contains(html, "&lt;script&gt;") {
		t.Errorf("the HTML part does not show the name escaped:\n%s", html)
	}
}

// Webhooks: the JSON body carries the text exactly, with < > & escaped as
// JSON escapes, so a receiver that pastes it into HTML unaware gets no markup.
func TestWebhookBodyEscapesUserText(t *testing.T) {
	t.Parallel()
	got := make(chan []byte, 1)
	recv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
	}))
	t.Cleanup(recv.Close)
	p := hostilePayload()
	ch := &models.NotificationChannel{ID: 1, Type: models.KindWebhook, Target: recv.URL, Secret: "s"}
	if err := newSender(NotifyConfig{AllowPrivateTargets: true}).send(t.Context(), ch, p); err != nil {
		t.Fatal(err)
	}
	body := <-got
	if bytes.ContainsAny(body, "<>") {
		t.Errorf("raw markup in the body: %s", body)
	}
	var back models.EventPayload
	if err := json.Unmarshal(body, &back); err != nil || back.Job.Name != p.Job.Name || back.Reason != p.Reason {
		t.Errorf("the body does not carry the text exactly (%v): %s", err, body)
	}
}
