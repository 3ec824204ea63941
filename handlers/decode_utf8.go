package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// checkBodyText refuses a JSON body that is not valid UTF-8, naming the
// field that holds the bad bytes (encoding/json would silently replace
// them with U+FFFD).
func checkBodyText(body []byte) error {
	if utf8.Valid(body) {
		return nil
	}
	return badText(invalidUTF8Field(body), "is not valid UTF-8")
}

// invalidUTF8Field returns the path ("gpus[0].uuid") of the JSON key or
// string value that holds the first invalid UTF-8 byte of body ("body" when
// it cannot tell).
func invalidUTF8Field(body []byte) string {
	at := len(body)
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && n <= 1 {
			at = i
			break
		}
		i += n
	}
	type level struct {
		object bool
		key    string
		index  int
		keyNow bool // in an object, the next string is a key
	}
	var stack []level
	path := func(extra string) string {
		var b strings.Builder
		for _, l := range stack {
			if l.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(l.key)
			} else {
				fmt.Fprintf(&b, "[%d]", l.index)
			}
		}
		if extra != "" {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(extra)
		}
		if b.Len() == 0 {
			return "body"
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	value := func() { // a value ended: advance the enclosing container
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].keyNow = true
			} else {
				stack[n-1].index++
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return path("")
		}
		end := dec.InputOffset()
		inKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].keyNow
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, level{object: true, keyNow: true})
			case '[':
				stack = append(stack, level{})
			default:
				stack = stack[:len(stack)-1]
				value()
			}
		case string:
			if inKey {
				top := &stack[len(stack)-1]
				if end > int64(at) {
					return path(t)
				}
				top.key, top.keyNow = t, false
				continue
			}
			if end > int64(at) {
				return path("")
			}
			value()
		default:
			value()
		}
	}
}
