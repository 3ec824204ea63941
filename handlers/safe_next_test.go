package handlers

import "testing"

func TestSafeNext(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"empty":                       {"", "/"},
		"a page":                      {"/queue", "/queue"},
		"a page with a query":         {"/jobs/7?tab=logs", "/jobs/7?tab=logs"},
		"a page with a fragment":      {"/bookings#today", "/bookings#today"},
		"root":                        {"/", "/"},
		"relative":                    {"queue", "/"},
		"protocol-relative":           {"//evil.example/phish", "/"},
		"absolute https":              {"https://evil.example/", "/"},
		"absolute http":               {"http://evil.example", "/"},
		"javascript":                  {"javascript:alert(1)", "/"},
		"tab between slashes":         {"/\t/evil.example/phish", "/"},
		"newline between slashes":     {"/\n/evil.example/phish", "/"},
		"carriage return":             {"/\r/evil.example", "/"},
		"backslash":                   {"/\\evil.example", "/"},
		"backslashes only":            {"\\\\evil.example", "/"},
		"encoded slash":               {"/%2F/evil.example", "/"},
		"encoded slash lower":         {"/%2f%2fevil.example", "/"},
		"encoded backslash":           {"/%5Cevil.example", "/"},
		"encoded tab":                 {"/%09/evil.example", "/"},
		"tab before slashes":          {"\t//evil.example", "/"},
		"leading space":               {" //evil.example", "/"},
		"triple slash":                {"///evil.example", "/"},
		"userinfo trick":              {"//user@evil.example", "/"},
		"scheme with tab":             {"ht\ttps://evil.example", "/"},
		"nul":                         {"/\x00/evil.example", "/"},
		"unicode line separator":      {"/\u2028/evil.example", "/"},
		"dot segments stay on site":   {"/../queue", "/../queue"},
		"an encoded space is fine":    {"/queue?q=a%20b", "/queue?q=a%20b"},
		"colon in the path is a path": {"/a:b", "/a:b"},
		"a mounted page with a query": {"/admin/river?x=1", "/admin/river?x=1"},
	}
	for name, tc := range tests {
		if got := safeNext(tc.in); got != tc.want {
			t.Errorf("%s: safeNext(%q) = %q, want %q", name, tc.in, got, tc.want)
		}
	}
}
