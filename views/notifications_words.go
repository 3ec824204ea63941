package views

import "strings"

// eventHead is an event's name up to and with its dot ("job."), and
// eventTail the rest ("finished"): a narrow screen breaks the name there,
// not inside a word.
func eventHead(event string) string {
	if i := strings.IndexByte(event, '.'); i >= 0 {
		return event[:i+1]
	}
	return event
}

func eventTail(event string) string {
	if i := strings.IndexByte(event, '.'); i >= 0 {
		return event[i+1:]
	}
	return ""
}
