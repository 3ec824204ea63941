package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// GPURef names one GPU: the cluster's id of it (ID > 0), or its node and
// index there, as pages show it ("sim-node-1:4").
type GPURef struct {
	ID    int64
	Node  string
	Index int
	// Profile is a MIG device's ("1g.10gb"), shown after its GPU's name
	// ("sim-node-1:0/1g.10gb"). A MIG device shares its GPU's index, so
	// node:index names whole GPUs only: requests name MIG devices by id.
	Profile string
}

// String is the name as a person writes it: "sim-node-1:4", or the id.
func (r GPURef) String() string {
	if r.Node != "" {
		return GPUName(r.Node, r.Index) + r.profile()
	}
	return strconv.FormatInt(r.ID, 10)
}

// profile is "/1g.10gb" for a MIG device, else "".
func (r GPURef) profile() string {
	if r.Profile == "" {
		return ""
	}
	return "/" + r.Profile
}

// GPUName is the name people see for the GPU at index on node: "node:index".
func GPUName(node string, index int) string {
	return node + ":" + strconv.Itoa(index)
}

// GPURefs names GPUs in a request (the field gpu_ids). It reads a JSON
// array of ids and names ([13, 14] or ["sim-node-1:4", "sim-node-1:5"]) or
// one string as ParseGPURefs reads it ("sim-node-1:4,5"); it writes the
// array of ids when every GPU is named by id (what older servers read),
// else the array of names.
type GPURefs []GPURef

// ParseGPURefs reads GPU names separated by commas: "node:index" names the
// GPU at index on node, and a bare number after it another index on the
// same node ("sim-node-1:4,5" is indices 4 and 5 of sim-node-1;
// "sim-node-1:4,sim-node-2:0" one GPU on each). A bare number before any
// node name is a cluster GPU id ("13,14"). Spaces around names are ignored.
func ParseGPURefs(s string) (GPURefs, error) {
	var out GPURefs
	node := ""
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%q has an empty GPU name: write node:index (sim-node-1:4,5) or GPU ids (13,14)", s)
		}
		if n, idx, ok := strings.Cut(part, ":"); ok {
			n = strings.TrimSpace(n)
			if !validNodeName(n) {
				return nil, fmt.Errorf("%q is not a node name: write node:index, like sim-node-1:4", n)
			}
			i, err := gpuIndex(strings.TrimSpace(idx))
			if err != nil {
				return nil, fmt.Errorf("%q: %w", part, err)
			}
			node = n
			out = append(out, GPURef{Node: node, Index: i})
			continue
		}
		if node != "" {
			i, err := gpuIndex(part)
			if err != nil {
				return nil, fmt.Errorf("%q after %s: %w", part, node, err)
			}
			out = append(out, GPURef{Node: node, Index: i})
			continue
		}
		id, err := strconv.ParseInt(part, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("%q is not a GPU: write node:index (sim-node-1:4) or a GPU id (13)", part)
		}
		out = append(out, GPURef{ID: id})
	}
	return out, nil
}

// gpuIndex reads a GPU's index on its node.
func gpuIndex(s string) (int, error) {
	i, err := strconv.Atoi(s)
	if err != nil || i < 0 || i > 1<<16 {
		return 0, fmt.Errorf("%q is not a GPU index (0, 1, 2…)", s)
	}
	return i, nil
}

// validNodeName reports whether s can be a node's name (the nodes table's
// rule: a letter or digit, then up to 62 of letters, digits, '.', '_', '-').
func validNodeName(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i, c := range s {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || (c != '.' && c != '_' && c != '-')) {
			return false
		}
	}
	return true
}

// String writes the names compactly, as ParseGPURefs reads them back:
// "sim-node-1:4,5,sim-node-2:0", or "13,14".
func (rs GPURefs) String() string {
	var b strings.Builder
	node := ""
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case r.Node == "":
			if node != "" { // an id after a node would read as an index
				return rs.plain()
			}
			b.WriteString(strconv.FormatInt(r.ID, 10))
		case r.Node == node:
			b.WriteString(strconv.Itoa(r.Index) + r.profile())
		default:
			node = r.Node
			b.WriteString(r.String())
		}
	}
	return b.String()
}

// plain writes every name in full ("sim-node-1:4,13" would read 13 as an
// index, so ids come first).
func (rs GPURefs) plain() string {
	var ids, names []string
	for _, r := range rs {
		if r.Node == "" {
			ids = append(ids, r.String())
		} else {
			names = append(names, r.String())
		}
	}
	return strings.Join(append(ids, names...), ",")
}

// IDsOnly reports whether every GPU is named by its id (none by node).
func (rs GPURefs) IDsOnly() bool {
	for _, r := range rs {
		if r.Node != "" {
			return false
		}
	}
	return true
}

// IDs are the GPUs' ids when every GPU is named by id.
func (rs GPURefs) IDs() []int64 {
	out := make([]int64, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// RefsOfIDs names GPUs by id.
func RefsOfIDs(ids []int64) GPURefs {
	out := make(GPURefs, len(ids))
	for i, id := range ids {
		out[i] = GPURef{ID: id}
	}
	return out
}

// MarshalJSON writes ids as numbers when every GPU has one, else names.
func (rs GPURefs) MarshalJSON() ([]byte, error) {
	if rs == nil {
		return []byte("null"), nil
	}
	if rs.IDsOnly() {
		return json.Marshal(rs.IDs())
	}
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.String()
	}
	return json.Marshal(names)
}

// gpuRefsWant says what a GPU list accepts.
const gpuRefsWant = `must be GPU ids or node:index names: [13, 14], ["sim-node-1:4", "sim-node-1:5"] or "sim-node-1:4,5"`

// UnmarshalJSON reads an array of ids and names, or one string of them.
func (rs *GPURefs) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*rs = nil
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return invalidValue[GPURefs](gpuRefsWant)
		}
		out, err := ParseGPURefs(s)
		if err != nil {
			return invalidValue[GPURefs](err.Error())
		}
		*rs = out
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return invalidValue[GPURefs](gpuRefsWant)
	}
	out := GPURefs{}
	for _, it := range items {
		var id int64
		if err := json.Unmarshal(it, &id); err == nil {
			out = append(out, GPURef{ID: id}) // ids are checked where they are looked up
			continue
		}
		var s string
		if err := json.Unmarshal(it, &s); err != nil {
			return invalidValue[GPURefs](gpuRefsWant)
		}
		refs, err := ParseGPURefs(s)
		if err != nil {
			return invalidValue[GPURefs](err.Error())
		}
		out = append(out, refs...)
	}
	*rs = out
	return nil
}
