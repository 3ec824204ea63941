package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "ml_jobs.log")
	if err := os.WriteFile(logPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.yaml")
	y := `gpuscheduler: {api_endpoint: "http://127.0.0.1:8080", api_key: "env(GPUSCHEDULER_API_KEY)"}
llm: {provider: openai, model: llama3, base_url: "http://localhost:11434/v1"}
monitors:
  - {name: log, type: log_tailer, path: "` + logPath + `", prompt: "GPU? {line}"}
  - {name: nb, type: file_watcher, path: "` + filepath.Join(dir, "missing") + `", pattern: "*.ipynb", prompt: "GPU? {content}"}
`
	if err := os.WriteFile(cfg, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	getenv := func(k string) string { return map[string]string{"GPUSCHEDULER_API_KEY": "gsu_x"}[k] }
	if err := run(context.Background(), []string{"check", "--config", cfg}, nil, &out, &errOut, getenv); err != nil {
		t.Fatalf("check: %v\n%s", err, errOut.String())
	}
	for _, want := range []string{
		"llm: openai model llama3 at http://localhost:11434/v1",
		"monitor log (log_tailer): follows " + logPath,
		"monitor nb (file_watcher): watches " + filepath.Join(dir, "missing", "*.ipynb") + " (recursive)",
		"warning: monitor nb: " + filepath.Join(dir, "missing") + " does not exist yet",
		cfg + " is valid",
	} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("check output lacks %q:\n%s", want, out.String())
		}
	}
	err := run(context.Background(), []string{"check", "--config", cfg}, nil, &out, &errOut, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), cfg+":1: gpuscheduler.api_key: environment variable GPUSCHEDULER_API_KEY is not set") {
		t.Fatalf("check without the variable: %v", err)
	}
}

func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	if err := run(context.Background(), []string{"frobnicate"}, nil, &out, &out, os.Getenv); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("got %v", err)
	}
}
