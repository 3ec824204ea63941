package clientagent

import "testing"

func TestParseAnswer(t *testing.T) {
	t.Parallel()
	tests := map[string]Answer{
		"yes": AnswerYes, " Yes.": AnswerYes, "YES!": AnswerYes, "**Yes**": AnswerYes, "\"YES\"\n": AnswerYes,
		"Yes, it loads a 7B model onto cuda": AnswerYes, "y": AnswerYes,
		"no": AnswerNo, "No.": AnswerNo, " NO ": AnswerNo, "No, this is a linter run.": AnswerNo,
		"": AnswerUnclear, "   ": AnswerUnclear, "Maybe": AnswerUnclear, "yesterday": AnswerUnclear,
		"I think yes": AnswerUnclear, "¿sí?": AnswerUnclear, "42": AnswerUnclear,
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			if got := ParseAnswer(in); got != want {
				t.Fatalf("ParseAnswer(%q) = %v, want %v", in, got, want)
			}
		})
	}
}
