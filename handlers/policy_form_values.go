package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// policyValues are the form's texts of cfg, by key; a bool is "true" or "".
func policyValues(cfg scheduler.Config) map[string]string {
	b, _ := json.Marshal(cfg)
	var tree map[string]any
	_ = json.Unmarshal(b, &tree)
	out := map[string]string{}
	for _, sec := range policySections {
		for _, k := range sec.keys {
			out[k.key] = formText(k, lookup(tree, k.key))
		}
	}
	return out
}

// formText writes a policy value (as JSON decoded it) for the form.
func formText(k policyKey, v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case bool:
		if v {
			return "true"
		}
		return ""
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		if k.kind == keyDuration {
			if d, err := time.ParseDuration(v); err == nil {
				return shortDuration(d)
			}
		}
		return v
	case map[string]any: // rates: "A100 = 1.2, H100 = 2.5"
		parts := make([]string, 0, len(v))
		for _, name := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, name+" = "+formText(k, v[name]))
		}
		return strings.Join(parts, ", ")
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = formText(k, e)
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}

// lookup finds a dotted key in a decoded JSON object.
func lookup(tree map[string]any, key string) any {
	head, rest, nested := strings.Cut(key, ".")
	if !nested {
		return tree[head]
	}
	sub, _ := tree[head].(map[string]any)
	return lookup(sub, rest)
}

// policyFromValues reads the form's texts over base (so that a key the
// form does not show keeps its value) into a policy. Each text that cannot
// be read is in errs, by key, with a sentence; nothing else is checked
// here (Validate does).
func policyFromValues(base scheduler.Config, vals map[string]string) (scheduler.Config, map[string]string) {
	b, _ := json.Marshal(base)
	var tree map[string]any
	_ = json.Unmarshal(b, &tree)
	errs := map[string]string{}
	for _, sec := range policySections {
		for _, k := range sec.keys {
			v, drop, msg := readText(k, strings.TrimSpace(vals[k.key]))
			switch {
			case msg != "":
				errs[k.key] = msg
			case drop:
				set(tree, k.key, nil)
			default:
				set(tree, k.key, v)
			}
		}
	}
	var cfg scheduler.Config
	if len(errs) > 0 {
		return base, errs
	}
	b, _ = json.Marshal(tree)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		errs[""] = fmt.Sprintf("The policy cannot be read: %v.", err)
		return base, errs
	}
	return cfg, nil
}

// readText reads one field's text as its kind says: the JSON value, or
// drop (an empty optional field: the key is left out), or a sentence.
func readText(k policyKey, s string) (v any, drop bool, msg string) {
	if s == "" && k.kind != keyBool {
		if k.optional {
			return nil, true, ""
		}
		return nil, false, "Required."
	}
	switch k.kind {
	case keyBool:
		return s != "", false, ""
	case keyDuration:
		if _, err := time.ParseDuration(s); err != nil {
			return nil, false, fmt.Sprintf("%q is not a duration like 90s, 15m or 2h.", s)
		}
		return s, false, ""
	case keyAge:
		var a scheduler.Age
		if err := a.UnmarshalText([]byte(s)); err != nil {
			return nil, false, fmt.Sprintf("%q is not an age like 90d (days) or 36h.", s)
		}
		return s, false, ""
	case keyFloat:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, false, fmt.Sprintf("%q is not a number.", s)
		}
		return f, false, ""
	case keyInt:
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, false, fmt.Sprintf("%q is not a whole number.", s)
		}
		return n, false, ""
	case keySelect:
		for _, o := range k.options {
			if o.Value == s {
				return s, false, ""
			}
		}
		return nil, false, fmt.Sprintf("%q is not one of the choices.", s)
	case keyFloats:
		var out []float64
		for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ' ' }) {
			f, err := strconv.ParseFloat(part, 64)
			if err != nil {
				return nil, false, fmt.Sprintf("%q is not a number; give numbers separated by commas.", part)
			}
			out = append(out, f)
		}
		return out, false, ""
	case keyText:
		return s, false, ""
	case keyRates:
		return readRates(s)
	case keyStrings:
		var out []string
		for part := range strings.SplitSeq(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
		return out, false, ""
	}
	return nil, false, "unknown field kind " + k.kind
}

// set puts v (nil: deletes) at a dotted key, making sections as needed.
func set(tree map[string]any, key string, v any) {
	head, rest, nested := strings.Cut(key, ".")
	if !nested {
		if v == nil {
			delete(tree, head)
		} else {
			tree[head] = v
		}
		return
	}
	sub, ok := tree[head].(map[string]any)
	if !ok {
		sub = map[string]any{}
		tree[head] = sub
	}
	set(sub, rest, v)
}

// readRates reads "H100 = 2.5, A100 = 1.2" (or "H100: 2.5") into a rate
// per name; the policy's validation checks the numbers' range.
func readRates(s string) (v any, drop bool, msg string) {
	out := map[string]any{}
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, num, ok := strings.Cut(part, "=")
		if !ok {
			name, num, ok = strings.Cut(part, ":")
		}
		name, num = strings.TrimSpace(name), strings.TrimSpace(num)
		if !ok || name == "" {
			return nil, false, fmt.Sprintf("%q is not a model and a price like H100 = 2.5.", part)
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return nil, false, fmt.Sprintf("%q is not a price for %s; give a number like 2.5.", num, name)
		}
		if _, dup := out[name]; dup {
			return nil, false, fmt.Sprintf("%s is priced twice.", name)
		}
		out[name] = f
	}
	if len(out) == 0 {
		return nil, true, ""
	}
	return out, false, ""
}
