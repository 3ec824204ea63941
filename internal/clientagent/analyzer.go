package clientagent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"
)

// ErrRateLimited is returned when an event is dropped because the LLM call
// budget of the minute is spent.
var ErrRateLimited = errors.New("LLM call budget of the minute spent")

// maxPromptContent caps what of a file goes into a prompt.
const maxPromptContent = 32 << 10

// Analyzer decides whether an event means GPU work is about to start: a
// cheap prefilter first, then (unless the provider is none) the user's LLM,
// with a timeout per call, retries with backoff and a rate limit.
type Analyzer struct {
	llm        LLM
	prompts    map[string]string
	prefilters map[string]*regexp.Regexp
	timeout    time.Duration
	retries    int
	backoff    time.Duration
	limiter    *limiter
	logger     *slog.Logger
}

// NewAnalyzer builds the analyzer for cfg's monitors; llm nil means
// provider none (the prefilter decides).
func NewAnalyzer(cfg *Config, llm LLM, logger *slog.Logger, now func() time.Time) (*Analyzer, error) {
	a := &Analyzer{llm: llm, prompts: map[string]string{}, prefilters: map[string]*regexp.Regexp{},
		timeout: cfg.LLM.Timeout.D(30 * time.Second), retries: 2, backoff: 500 * time.Millisecond, logger: logger,
		limiter: &limiter{per: time.Minute, max: maxOr(cfg.LLM.MaxCallsPerMinute, 30), now: now}}
	if cfg.LLM.MaxRetries != nil {
		a.retries = *cfg.LLM.MaxRetries
	}
	for _, m := range cfg.Monitors {
		re, err := prefilterFor(m)
		if err != nil {
			return nil, err
		}
		a.prompts[m.Name], a.prefilters[m.Name] = m.Prompt, re
	}
	return a, nil
}

// Decide answers whether ev calls for GPUs.
func (a *Analyzer) Decide(ctx context.Context, ev Event) (bool, error) {
	text := ev.Line
	if ev.Content != "" {
		text = ev.Content
	}
	if re := a.prefilters[ev.Monitor]; re != nil && !re.MatchString(text) {
		return false, nil
	}
	if a.llm == nil {
		return true, nil
	}
	if !a.limiter.allow() {
		return false, ErrRateLimited
	}
	prompt := FillPrompt(a.prompts[ev.Monitor], ev)
	var reply string
	var err error
	for attempt := 0; ; attempt++ {
		callCtx, cancel := context.WithTimeout(ctx, a.timeout)
		reply, err = a.llm.Ask(callCtx, prompt)
		cancel()
		if err == nil || attempt >= a.retries || !retryable(err) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(a.backoff << attempt):
		}
	}
	if err != nil {
		return false, fmt.Errorf("clientagent: ask the LLM for %s: %w", ev.Monitor, err)
	}
	switch ParseAnswer(reply) {
	case AnswerYes:
		return true, nil
	case AnswerUnclear:
		// The reply stays local: it is logged on this machine only, cut short.
		a.logger.Info("the LLM's answer is neither yes nor no; taken as no", "monitor", ev.Monitor, "answer", capString(reply, 80))
	}
	return false, nil
}

// FillPrompt puts the event into a monitor's prompt: {line}, {content}
// (a file's content, capped) and {path}.
func FillPrompt(tmpl string, ev Event) string {
	return strings.NewReplacer("{line}", ev.Line, "{content}", capString(ev.Content, maxPromptContent), "{path}", ev.Source).Replace(tmpl)
}

// limiter allows max calls in any window of per.
type limiter struct {
	mu    sync.Mutex
	per   time.Duration
	max   int
	now   func() time.Time
	calls []time.Time
}

func (l *limiter) allow() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	keep := l.calls[:0]
	for _, t := range l.calls {
		if now.Sub(t) < l.per {
			keep = append(keep, t)
		}
	}
	l.calls = keep
	if len(l.calls) >= l.max {
		return false
	}
	l.calls = append(l.calls, now)
	return true
}
