package web_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The usage charts, drawn by script, label their time axes on a 24-hour
// clock in the viewer's zone (Berlin), not the browser's (New York), and
// their legend words an instant as the pages do, with the zone.
func TestUsageChartTimesInViewersZone(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	member := usageCluster(t, s)
	if _, err := models.SetUserTimeZone(t.Context(), s.DB.Bun, member.ID, "Europe/Berlin", false); err != nil {
		t.Fatal(err)
	}
	berlin, err := localtime.Load("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tab := browsertest.New(t, 90*time.Second)
	err = chromedp.Do(tab,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/New_York"})
			return err
		}),
		chromedp.Navigate(s.URL+"/"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, member.Email),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=my-jobs]`),
		chromedp.Navigate(s.URL+"/usage?range=day"),
		chromedp.WaitVisible(`#usage-charts[data-drawn=true]`),
	)
	if err != nil {
		t.Fatalf("sign in and open the usage page: %v", err)
	}
	const chart = `document.querySelector('[data-chart=util-node]').__chart`
	poll(t, tab, "the time axis to be labelled", chart+`.axes[0]._values && `+chart+`.axes[0]._values.length > 0`, 10*time.Second)
	ticks, err := chromedp.Run(tab, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('#usage-charts [data-chart]'))
		.flatMap(f => (f.__chart && f.__chart.axes[0]._values) || []).join("|")`))
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`(?i)\d\s*(am|pm)\b`).MatchString(ticks) || !regexp.MustCompile(`\b([01]\d|2[0-3]):[0-5]\d\b`).MatchString(ticks) || strings.Contains(ticks, "UTC") {
		t.Errorf("time axis labels %q: want a 24-hour clock", ticks)
	}
	last, err := chromedp.Run(tab, chromedp.Evaluate[int64](chart+`.data[0][`+chart+`.data[0].length - 1]`))
	if err != nil {
		t.Fatal(err)
	}
	legend, err := chromedp.Run(tab, chromedp.Evaluate[string](`(() => { const c = `+chart+`;
		c.setCursor({left: c.valToPos(c.data[0][c.data[0].length - 1], 'x'), top: 10});
		return document.querySelector('[data-chart=util-node] .u-legend .u-series:first-child .u-value').textContent; })()`))
	if want := localtime.Stamp(time.Unix(last, 0), berlin); err != nil || legend != want {
		t.Errorf("the legend says %q (%v), want %q: the instant in Berlin time", legend, err, want)
	}
	label, err := chromedp.Run(tab, chromedp.Evaluate[string](chart+`.axes[0].label`))
	if want := localtime.Abbrev(time.Now(), berlin); err != nil || label != want {
		t.Errorf("the time axis is labelled %q (%v), want the zone %q", label, err, want)
	}
}
