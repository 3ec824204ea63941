package web_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// The policy form sets accounting's prices: rates per GPU model as
// "model = price" pairs and a currency. They are stored as the policy's
// cost_rates and currency, shown back in the same words, refused beside
// their field when they do not read or are negative, and cleared by an
// empty field.
func TestAdminPolicyFormCostRates(t *testing.T) {
	t.Parallel()
	s, c, _ := adminServer(t)
	_, page := fetchPage(t, s, c, "/admin/policies")
	form := formOf(t, page, "policy-form")
	for _, k := range []string{"cost_rates", "currency"} {
		if _, ok := form[k]; !ok {
			t.Fatalf("no field %s on the form", k)
		}
	}
	form.Set("action", "save")

	good := cloneValues(form)
	good.Set("cost_rates", "H100-80GB = 2.5, A100: 1.2")
	good.Set("currency", "EUR")
	if st, body := postAdminForm(t, s, c, "/admin/policies", good); st != 200 || !strings.Contains(body, `data-testid="saved"`) {
		t.Fatalf("save: %d %s", st, humanText(t, body))
	}
	cfg, err := models.SchedulerConfig(t.Context(), s.DB.Bun)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]float64{"H100-80GB": 2.5, "A100": 1.2}, cfg.CostRates); d != "" || cfg.Currency != "EUR" {
		t.Errorf("stored rates (-want +got):\n%s currency %q", d, cfg.Currency)
	}
	_, page = fetchPage(t, s, c, "/admin/policies")
	if f := formOf(t, page, "policy-form"); f.Get("cost_rates") != "A100 = 1.2, H100-80GB = 2.5" || f.Get("currency") != "EUR" {
		t.Errorf("shown back: cost_rates %q, currency %q", f.Get("cost_rates"), f.Get("currency"))
	}

	refused := map[string]struct{ rates, currency, key, want string }{
		"not a pair":      {"H100 2.5", "EUR", "cost_rates", "is not a model and a price"},
		"not a number":    {"H100 = cheap", "EUR", "cost_rates", "is not a price for H100"},
		"negative":        {"H100 = -1", "EUR", "cost_rates", "0 or more"},
		"priced twice":    {"H100 = 1, H100 = 2", "EUR", "cost_rates", "priced twice"},
		"a long currency": {"H100 = 1", strings.Repeat("X", 17), "currency", "at most 16 characters"},
	}
	for name, tc := range refused {
		t.Run(name, func(t *testing.T) {
			bad := cloneValues(form)
			bad.Set("cost_rates", tc.rates)
			bad.Set("currency", tc.currency)
			st, body := postAdminForm(t, s, c, "/admin/policies", bad)
			if st != 400 {
				t.Fatalf("%d", st)
			}
			if got := fieldErrors(t, body)[tc.key]; !strings.Contains(got, tc.want) {
				t.Errorf("beside %s: %q, want %q", tc.key, got, tc.want)
			}
		})
	}

	cleared := cloneValues(form)
	cleared.Set("cost_rates", "")
	cleared.Set("currency", "")
	if st, body := postAdminForm(t, s, c, "/admin/policies", cleared); st != 200 {
		t.Fatalf("clear: %d %s", st, humanText(t, body))
	}
	if cfg, _ := models.SchedulerConfig(t.Context(), s.DB.Bun); len(cfg.CostRates) != 0 || cfg.Currency != "" {
		t.Errorf("after clearing: %v %q", cfg.CostRates, cfg.Currency)
	}
}
