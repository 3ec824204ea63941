package models

// UsageKindBatch is the usage kind of every job that is not a session.
const UsageKindBatch = "batch"

// UsageKinds are the kinds usage splits GPU time by, in the order pages
// show them: batch jobs, then each session kind.
var UsageKinds = append([]string{UsageKindBatch}, SessionKinds...)

// UsageKindOf is the usage kind of a job of type jobType: its session
// kind, else UsageKindBatch.
func UsageKindOf(jobType string) string {
	if k := SessionKindOf(jobType); k != "" {
		return k
	}
	return UsageKindBatch
}
