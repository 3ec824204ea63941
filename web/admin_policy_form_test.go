package web_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The policy page is a form: each preset with what it does and when to
// choose it, each key with its unit and default, idle settings and booking
// limits as fields. What the page shows goes back unchanged; a preset and
// changed fields are saved together; bad values come back as typed, each
// problem beside its field, nothing saved; the JSON editor stays.
func TestAdminPolicyForm(t *testing.T) {
	t.Parallel()
	s, c, _ := adminServer(t)
	_, page := fetchPage(t, s, c, "/admin/policies")
	text := humanText(t, page)
	for _, p := range scheduler.Presets() {
		if !strings.Contains(text, p.Summary) || !strings.Contains(text, "Use when: "+p.UseWhen) {
			t.Errorf("preset %s is not explained on the page", p.Name)
		}
	}
	for _, want := range []string{"idle_after", "idle_action", "booking_limits.max_live", "booking_limits.max_gpus", "las.max_lost_share", "retention.audit_log"} {
		if !strings.Contains(page, `name="`+want+`"`) {
			t.Errorf("no field %s", want)
		}
	}
	for _, want := range []string{"(priority levels per hour)", "Default: 10m", "Default: 5 (GPUSCHED_BOOKING_MAX_LIVE)", "(share of GPU time, 0 to 1)", "JSON (for experts)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	form := formOf(t, page, "policy-form")
	if form.Get("preset") != "default" {
		t.Errorf("the default policy's preset shows as %q", form.Get("preset"))
	}

	// Unchanged, the form stores the policy it shows.
	before, _ := models.SchedulerConfig(t.Context(), s.DB.Bun)
	form.Set("action", "save")
	if st, body := postAdminForm(t, s, c, "/admin/policies", cloneValues(form)); st != 200 || !strings.Contains(body, `data-testid="saved"`) {
		t.Fatalf("save the form as shown: %d %s", st, humanText(t, body))
	}
	if after, _ := models.SchedulerConfig(t.Context(), s.DB.Bun); !cmp.Equal(before, after) {
		t.Errorf("the form as shown changed the policy (-before +after):\n%s", cmp.Diff(before, after))
	}

	// Refused: each problem beside its field, what was typed kept.
	bad := cloneValues(form)
	bad.Set("idle_action", "release")
	bad.Set("idle_after", "soon")
	bad.Set("las.max_lost_share", "2")
	bad.Set("booking_limits.max_gpus", "-1")
	bad.Set("aging_per_hour", "fast")
	st, body := postAdminForm(t, s, c, "/admin/policies", bad)
	if st != 400 {
		t.Fatalf("bad values: %d", st)
	}
	got := fieldErrors(t, body)
	want := map[string]string{"idle_after": `"soon" is not a duration`, "aging_per_hour": `"fast" is not a number`}
	for k, w := range want {
		if !strings.Contains(got[k], w) {
			t.Errorf("beside %s: %q, want %q", k, got[k], w)
		}
	}
	if echoed := formOf(t, body, "policy-form"); echoed.Get("idle_after") != "soon" || echoed.Get("booking_limits.max_gpus") != "-1" {
		t.Errorf("the refused form lost what was typed: idle_after %q", echoed.Get("idle_after"))
	}
	// Values that read but break the rules: Validate's sentences, beside their fields.
	bad.Set("idle_after", "")
	bad.Set("aging_per_hour", "0.25")
	_, body = postAdminForm(t, s, c, "/admin/policies", bad)
	got = fieldErrors(t, body)
	for k, w := range map[string]string{"idle_after": "must be positive", "las.max_lost_share": "between 0 and 1", "booking_limits.max_gpus": "between 1 and"} {
		if !strings.Contains(got[k], w) {
			t.Errorf("beside %s: %q, want %q", k, got[k], w)
		}
	}
	if after, _ := models.SchedulerConfig(t.Context(), s.DB.Bun); !cmp.Equal(before, after) {
		t.Error("a refused form changed the policy")
	}

	// A preset and changed fields, saved together.
	good := cloneValues(form)
	good.Set("preset", "fairshare-backfill")
	good.Set("idle_action", "warn")
	good.Set("idle_after", "2h")
	good.Set("idle_exempt", "ana@example.com, team:vision")
	good.Set("booking_limits.max_live", "3")
	good.Set("booking_limits.max_length", "24h")
	good.Del("las.checkpoint_preemption") // unticked
	if st, body := postAdminForm(t, s, c, "/admin/policies", good); st != 200 || !strings.Contains(body, `data-testid="saved"`) {
		t.Fatalf("save: %d %s", st, humanText(t, body))
	}
	wantCfg := before
	wantCfg.Policy, wantCfg.Backfill, wantCfg.Preemption = scheduler.PolicyFairShare, true, true
	wantCfg.IdleAction, wantCfg.IdleAfter, wantCfg.IdleExempt = scheduler.IdleWarn, scheduler.Duration(2*time.Hour), []string{"ana@example.com", "team:vision"}
	wantCfg.BookingLimits = scheduler.BookingLimits{MaxLive: 3, MaxLength: scheduler.Duration(24 * time.Hour)}
	wantCfg.LAS.CheckpointPreemption = false
	if after, _ := models.SchedulerConfig(t.Context(), s.DB.Bun); !cmp.Equal(wantCfg, after) {
		t.Errorf("stored (-want +got):\n%s", cmp.Diff(wantCfg, after))
	}
	_, page = fetchPage(t, s, c, "/admin/policies")
	if f := formOf(t, page, "policy-form"); f.Get("preset") != "fairshare-backfill" || f.Get("idle_after") != "2h" || f.Get("booking_limits.max_live") != "3" {
		t.Errorf("the page after saving shows preset %q, idle_after %q, max_live %q", f.Get("preset"), f.Get("idle_after"), f.Get("booking_limits.max_live"))
	}
}

// formOf is what a browser would send of the form marked data-testid=id:
// text inputs, ticked boxes and radios, chosen options.
func formOf(t *testing.T, page, id string) url.Values {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	attr := func(n *html.Node, k string) (string, bool) {
		for _, a := range n.Attr {
			if a.Key == k {
				return a.Val, true
			}
		}
		return "", false
	}
	out := url.Values{}
	var walk func(n *html.Node, in bool)
	walk = func(n *html.Node, in bool) {
		if n.Type == html.ElementNode {
			if v, _ := attr(n, "data-testid"); n.Data == "form" && v == id {
				in = true
			}
			name, named := attr(n, "name")
			switch {
			case !in || !named:
			case n.Data == "input":
				typ, _ := attr(n, "type")
				val, _ := attr(n, "value")
				_, checked := attr(n, "checked")
				if (typ != "checkbox" && typ != "radio") || checked {
					out.Add(name, val)
				}
			case n.Data == "select":
				first := ""
				for o := n.FirstChild; o != nil; o = o.NextSibling {
					if o.Type == html.ElementNode && o.Data == "option" {
						v, _ := attr(o, "value")
						if _, sel := attr(o, "selected"); sel {
							first = v
							break
						}
					}
				}
				out.Add(name, first)
			}
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch, in)
		}
	}
	walk(doc, false)
	if len(out) == 0 {
		t.Fatalf("no form %s on the page", id)
	}
	return out
}

// fieldErrors are the errors shown beside fields, by key.
func fieldErrors(t *testing.T, page string) map[string]string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "p" {
			var key, tid string
			for _, a := range n.Attr {
				switch a.Key {
				case "data-key":
					key = a.Val
				case "data-testid":
					tid = a.Val
				}
			}
			if tid == "field-error" && n.FirstChild != nil {
				out[key] = n.FirstChild.Data
			}
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(doc)
	return out
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
