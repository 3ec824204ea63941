package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// decodeTargets are the request types of the JSON API's decoders.
var decodeTargets = map[string]func() any{
	"job spec":        func() any { return new(api.SubmitRequest) },
	"booking":         func() any { return new(api.BookingRequest) },
	"allocate":        func() any { return new(api.AllocateRequest) },
	"release":         func() any { return new(api.ReleaseRequest) },
	"renew":           func() any { return new(api.RenewRequest) },
	"hold":            func() any { return new(api.HoldRequest) },
	"command result":  func() any { return new(api.CommandResult) },
	"heartbeat":       func() any { return new(api.HeartbeatRequest) },
	"lease":           func() any { return new(api.NodeLeaseRequest) },
	"register":        func() any { return new(api.RegisterNodeRequest) },
	"job exit":        func() any { return new(api.JobExit) },
	"log chunk":       func() any { return new(api.LogChunk) },
	"policy":          func() any { return new(policyBody) },
	"priority":        func() any { return new(api.PriorityRequest) },
	"scoring observe": func() any { return new(ObserveRequest) },
	"scoring score":   func() any { return new(ScoreRequest) },
}

// decodeBody runs readJSON over body as a JSON request.
func decodeBody(body []byte, v any) error {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	c := echo.New().NewContext(req, httptest.NewRecorder())
	_, err := readJSON(c, v)
	return err
}

func TestDecodeRefusesBadText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, target, field string
	}{
		{"NUL in a command", `{"gpu_count":1,"command":"echo a\u0000b"}`, "job spec", "command"},
		{"NUL in an env value", `{"gpu_count":1,"env":{"A":"x\u0000"}}`, "job spec", "env.A"},
		{"NUL in an env key", `{"gpu_count":1,"env":{"A\u0000":"x"}}`, "job spec", "env"},
		{"invalid UTF-8 in a name", "{\"gpu_count\":1,\"name\":\"a\xffb\"}", "job spec", "name"},
		{"invalid UTF-8 in a nested value", "{\"gpus\":[{\"uuid\":\"ok\"},{\"uuid\":\"\xc3\"}]}", "heartbeat", "gpus[1].uuid"},
		{"invalid UTF-8 in a key", "{\"gpu_count\":1,\"env\":{\"\xfe\":\"x\"}}", "job spec", "env.\ufffd"},
		{"NUL in a hostname", `{"hostname":"\u0000"}`, "register", "hostname"},
		{"NUL in a lease's own job_id", `{"job_id":"a\u0000b"}`, "release", "job_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := decodeBody([]byte(tt.body), decodeTargets[tt.target]())
			var api *APIError
			if !errors.As(err, &api) || api.Status != http.StatusBadRequest || api.Code != "invalid_text" {
				t.Fatalf("got %v, want a 400 invalid_text", err)
			}
			if tt.field != "env.\ufffd" && !strings.Contains(api.Message, `"`+tt.field+`"`) {
				t.Fatalf("message %q does not name field %q", api.Message, tt.field)
			}
		})
	}
}

func TestInvalidUTF8Field(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"{\"a\":\"\xff\"}":                              "a",
		"{\"a\":{\"b\":[1,\"x\",\"\xff\"]}}":            "a.b[2]",
		"{\"a\":1,\"b\":{\"c\":\"ok\"},\"d\":\"\xff\"}": "d",
		"{\"\xff\":1}":                                  "\ufffd",
		"[\"\xff\"]":                                    "[0]",
		"\xff":                                          "body",
	}
	for body, want := range tests {
		if got := invalidUTF8Field([]byte(body)); got != want {
			t.Errorf("invalidUTF8Field(%q) = %q, want %q", body, got, want)
		}
	}
}

// FuzzDecoders feeds arbitrary bodies to every decoder of the JSON API: none
// panics, every refusal is a 4xx APIError, and whatever is accepted holds
// only valid text.
func FuzzDecoders(f *testing.F) {
	for _, seed := range []string{
		`{"gpu_count":1,"command":"python train.py","env":{"A":"b"}}`,
		`{"gpus":[{"uuid":"GPU-0","utilization_pct":50}]}`,
		`{"hostname":"h","gpus":[{"index":0,"uuid":"u","model":"m","memory_mib":1}]}`,
		`{"gpu_count":1e400}`, `{"gpu_count":"1"}`, `[]`, `null`, `{`, "{\"name\":\"\xff\"}", `{"name":"\u0000"}`,
		`{"starts_at":"2026-01-01T00:00:00Z","ends_at":"x"}`, `{"priority":"high"}`, `{"preset":"fifo"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for name, mk := range decodeTargets {
			v := mk()
			err := decodeBody(body, v)
			if err == nil {
				if err := checkText(v, oneLine); err != nil {
					t.Fatalf("%s: accepted %q holding bad text: %v", name, body, err)
				}
				continue
			}
			var api *APIError
			if !errors.As(err, &api) || api.Status < 400 || api.Status > 499 {
				t.Fatalf("%s: %q: got %v, want a 4xx APIError", name, body, err)
			}
		}
	})
}

// FuzzInvalidUTF8Field: the field finder never panics and always names
// something.
func FuzzInvalidUTF8Field(f *testing.F) {
	f.Add([]byte("{\"a\":[\"\xff\"]}"))
	f.Add([]byte("{\"a\":{\"\xff"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if invalidUTF8Field(body) == "" {
			t.Fatalf("no field named for %q", body)
		}
	})
}

// Control characters: one-line fields refuse every one (CR, LF, tab, ESC,
// DEL, C1) naming the field; fields that span lines take LF and tab and
// store CR LF and a lone CR as LF; node agents' reports take any text.
func TestDecodeTextRules(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body, target, field string
		node                bool
		check               func(v any) string // for accepted bodies: what was stored, "" when right
	}{
		"CR in a booking note":     {body: `{"gpu_count":1,"note":"a\rb"}`, target: "booking", field: "note"},
		"LF in a booking note":     {body: `{"gpu_count":1,"note":"a\nb"}`, target: "booking", field: "note"},
		"ESC in a job name":        {body: `{"gpu_count":1,"name":"\u001b[31mred"}`, target: "job spec", field: "name"},
		"tab in a job name":        {body: `{"gpu_count":1,"name":"a\tb"}`, target: "job spec", field: "name"},
		"DEL in a job type":        {body: `{"gpu_count":1,"job_type":"a\u007f"}`, target: "job spec", field: "job_type"},
		"C1 CSI in a workdir":      {body: `{"gpu_count":1,"workdir":"/a\u009b2J"}`, target: "job spec", field: "workdir"},
		"bell in a command":        {body: `{"gpu_count":1,"command":"echo \u0007"}`, target: "job spec", field: "command"},
		"ESC in an env value":      {body: `{"gpu_count":1,"env":{"A":"\u001b"}}`, target: "job spec", field: "env.A"},
		"LF in an env key":         {body: `{"gpu_count":1,"env":{"A\nB":"x"}}`, target: "job spec", field: "env"},
		"CR in a priority":         {body: `{"priority":"high\r"}`, target: "priority", field: "priority"},
		"CR in a hold's monitor":   {body: `{"gpu_count":1,"monitor":"log\r"}`, target: "hold", field: "monitor"},
		"CR in a scoring job type": {body: `{"job_type":"a\rb"}`, target: "scoring score", field: "job_type"},
		"a command over lines": {body: `{"gpu_count":1,"command":"cd /w\r\npython a.py\rpython\tb.py\n"}`, target: "job spec",
			check: func(v any) string {
				if got := v.(*api.SubmitRequest).Command; got != "cd /w\npython a.py\npython\tb.py\n" {
					return fmt.Sprintf("command %q", got)
				}
				return ""
			}},
		"an env value over lines": {body: `{"gpu_count":1,"env":{"PEM":"a\r\nb"}}`, target: "job spec",
			check: func(v any) string {
				if got := v.(*api.SubmitRequest).Env["PEM"]; got != "a\nb" {
					return fmt.Sprintf("env %q", got)
				}
				return ""
			}},
		"a node's report": {body: `{"ok":false,"message":"\u001b[31mexec failed\r\n\tat line 1"}`, target: "command result", node: true,
			check: func(any) string { return "" }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := decodeTargets[tc.target]()
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
			req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
			c := echo.New().NewContext(req, httptest.NewRecorder())
			base := oneLine
			if tc.node {
				base = anyText
			}
			_, err := readJSONAs(c, v, base)
			if tc.check != nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if msg := tc.check(v); msg != "" {
					t.Fatal(msg)
				}
				return
			}
			var api *APIError
			if !errors.As(err, &api) || api.Status != http.StatusBadRequest || api.Code != "invalid_text" {
				t.Fatalf("got %v, want a 400 invalid_text", err)
			}
			if !strings.Contains(api.Message, `"`+tc.field+`"`) {
				t.Fatalf("message %q does not name field %q", api.Message, tc.field)
			}
		})
	}
}

// Forms and queries: a one-line form field or any query parameter with a
// control character is a 400 naming it; a textarea's CR LF reaches the
// handler as LF.
func TestCheckParamsControls(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		target, form string
		status       int
		command      string
	}{
		"CR in a note":         {target: "/", form: "note=a%0Db", status: 400},
		"ESC in a name":        {target: "/", form: "name=%1B%5D8%3B%3Bx", status: 400},
		"LF in a query":        {target: "/?date=a%0Ab", status: 400},
		"textarea line breaks": {target: "/", form: "command=a%0D%0Ab%0Dc", status: 200, command: "a\nb\nc"},
		"ESC in a textarea":    {target: "/", form: "command=a%1Bb", status: 400},
		"plain form":           {target: "/", form: "name=train&note=for+the+paper", status: 200},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(http.MethodPost, tc.target, strings.NewReader(tc.form))
			req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
			c := echo.New().NewContext(req, httptest.NewRecorder())
			var command string
			err := CheckParams(func(c echo.Context) error {
				command = c.FormValue("command")
				return nil
			})(c)
			status := http.StatusOK
			var api *APIError
			if errors.As(err, &api) {
				status = api.Status
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tc.status || command != tc.command {
				t.Fatalf("status %d, command %q; want %d, %q (%v)", status, command, tc.status, tc.command, err)
			}
		})
	}
}
