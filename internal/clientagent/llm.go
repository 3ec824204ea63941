package clientagent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
)

// LLM asks the user's model one question and returns its reply.
type LLM interface {
	Ask(ctx context.Context, prompt string) (string, error)
}

// maxAnswerTokens is all a yes or no needs (Anthropic requires a bound).
const maxAnswerTokens = 8

// NewLLM returns the configured provider's client; nil for provider none.
// Every request goes through hc, to the configured endpoint only. The SDKs'
// own retries are off: the analyzer retries, with its rate limit.
func NewLLM(c LLMConfig, hc *http.Client) (LLM, error) {
	switch c.Provider {
	case ProviderNone:
		return nil, nil
	case ProviderOpenAI:
		opts := []ooption.RequestOption{ooption.WithHTTPClient(hc), ooption.WithMaxRetries(0), ooption.WithAPIKey(keyOr(c.APIKey))}
		if c.BaseURL != "" {
			opts = append(opts, ooption.WithBaseURL(c.BaseURL))
		} else {
			opts = append(opts, ooption.WithBaseURL("https://api.openai.com/v1/"))
		}
		return &openAI{client: openai.NewClient(opts...), model: c.Model}, nil
	case ProviderAnthropic:
		opts := []aoption.RequestOption{aoption.WithHTTPClient(hc), aoption.WithMaxRetries(0), aoption.WithAPIKey(keyOr(c.APIKey))}
		if c.BaseURL != "" {
			opts = append(opts, aoption.WithBaseURL(c.BaseURL))
		} else {
			opts = append(opts, aoption.WithBaseURL("https://api.anthropic.com/"))
		}
		return &anthropicLLM{client: anthropic.NewClient(opts...), model: c.Model}, nil
	}
	return nil, fmt.Errorf("clientagent: unknown LLM provider %q", c.Provider)
}

// keyOr gives local servers that need no key a placeholder, so that the
// SDKs do not fall back to a key from the environment.
func keyOr(k string) string {
	if k == "" {
		return "none"
	}
	return k
}

type openAI struct {
	client openai.Client
	model  string
}

// Ask calls /chat/completions.
func (o *openAI) Ask(ctx context.Context, prompt string) (string, error) {
	res, err := o.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		// No max_tokens: reasoning models refuse it, and the prompt asks for one word.
		Model:    openai.ChatModel(o.model),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
	})
	if err != nil {
		return "", fmt.Errorf("clientagent: openai: %w", err)
	}
	if len(res.Choices) == 0 {
		return "", errors.New("clientagent: openai: no choices in the answer")
	}
	return res.Choices[0].Message.Content, nil
}

type anthropicLLM struct {
	client anthropic.Client
	model  string
}

// Ask calls /v1/messages.
func (a *anthropicLLM) Ask(ctx context.Context, prompt string) (string, error) {
	res, err := a.client.Messages.New(ctx, anthropic.MessageNewParams{
		Model:     anthropic.Model(a.model),
		MaxTokens: maxAnswerTokens,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	})
	if err != nil {
		return "", fmt.Errorf("clientagent: anthropic: %w", err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String(), nil
}

// retryable reports whether an LLM error may pass on a retry: network
// trouble, timeouts, rate limits and server errors, not a bad key or model.
func retryable(err error) bool {
	var oe *openai.Error
	if errors.As(err, &oe) {
		return oe.StatusCode == http.StatusTooManyRequests || oe.StatusCode >= 500 || oe.StatusCode == http.StatusRequestTimeout
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		return ae.StatusCode == http.StatusTooManyRequests || ae.StatusCode >= 500 || ae.StatusCode == http.StatusRequestTimeout
	}
	return true
}
