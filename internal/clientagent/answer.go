package clientagent

import (
	"strings"
	"unicode"
)

// Answer is what an LLM's reply means.
type Answer int

// Answers: anything that is not a clear yes counts as no.
const (
	AnswerNo Answer = iota
	AnswerYes
	AnswerUnclear
)

// ParseAnswer reads an LLM's yes/no reply robustly: surrounding spaces,
// quotes, markdown and punctuation, and case, do not matter ("yes",
// " Yes.", "YES!", "**Yes**", "Yes, it loads a model"); the first word
// decides. Anything else is AnswerUnclear, which callers treat as no.
func ParseAnswer(reply string) Answer {
	word := strings.FieldsFunc(reply, func(r rune) bool { return !unicode.IsLetter(r) })
	if len(word) == 0 {
		return AnswerUnclear
	}
	switch strings.ToLower(word[0]) {
	case "yes", "y", "true":
		return AnswerYes
	case "no", "n", "false":
		return AnswerNo
	}
	return AnswerUnclear
}
