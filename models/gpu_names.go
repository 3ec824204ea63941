package models

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// ErrNoSuchGPU is returned for a GPU named by node and index that the
// cluster does not have (as a *NoSuchGPUError).
var ErrNoSuchGPU = errors.New("no such GPU")

// NoSuchGPUError names the GPU that is not there.
type NoSuchGPUError struct {
	Name string
	// Slices is set when the name is a GPU in MIG mode: its MIG devices,
	// as "7 × 1g.10gb", which are booked by profile, never as a whole GPU.
	Slices string
}

func (e *NoSuchGPUError) Error() string {
	if e.Slices != "" {
		return e.Name + " is split into MIG slices (" + e.Slices + ") and cannot be booked as a whole GPU; book slices by their profile (gpu type " + migProfileOf(e.Slices) + ")"
	}
	return "no GPU " + e.Name + " in the cluster"
}

// Unwrap makes it ErrNoSuchGPU.
func (e *NoSuchGPUError) Unwrap() error { return ErrNoSuchGPU }

// ResolveGPURefs gives the ids of the GPUs refs names, in order: a GPU
// named node:index is looked up among the present whole GPUs (node names
// match without regard to case; a MIG device shares its GPU's index and is
// named by id); one named by id is taken as it is (whoever uses it checks
// it exists).
func ResolveGPURefs(ctx context.Context, db bun.IDB, refs api.GPURefs) ([]int64, error) {
	out := make([]int64, len(refs))
	var nodes []string
	for i, r := range refs {
		out[i] = r.ID
		if r.Node != "" {
			nodes = append(nodes, strings.ToLower(r.Node))
		}
	}
	if len(nodes) == 0 {
		return out, nil
	}
	var gpus []BookableGPU
	err := db.NewSelect().TableExpr("gpus AS g").Join("JOIN nodes AS n ON n.id = g.node_id").
		ColumnExpr("g.id, g.node_id, n.name AS node_name, g.idx, g.model").
		Where("g.present").Where("g.kind = 'whole'").Where("lower(n.name) IN (?)", bun.In(nodes)).Scan(ctx, &gpus)
	if err != nil {
		return nil, fmt.Errorf("models: GPUs by name: %w", err)
	}
	byName := make(map[string]int64, len(gpus))
	for _, g := range gpus {
		byName[strings.ToLower(api.GPUName(g.NodeName, g.Index))] = g.ID
	}
	for i, r := range refs {
		if r.Node == "" {
			continue
		}
		id, ok := byName[strings.ToLower(r.String())]
		if !ok {
			slices, err := migSlicesAt(ctx, db, r)
			if err != nil {
				return nil, err
			}
			return nil, &NoSuchGPUError{Name: r.String(), Slices: slices}
		}
		out[i] = id
	}
	return out, nil
}

// GPUNamesOf names GPUs by node and index, by id, present or not.
func GPUNamesOf(ctx context.Context, db bun.IDB, ids []int64) (map[int64]api.GPURef, error) {
	out := make(map[int64]api.GPURef, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		BookableGPU
		Profile string `bun:"profile"`
	}
	err := db.NewSelect().TableExpr("gpus AS g").Join("JOIN nodes AS n ON n.id = g.node_id").
		ColumnExpr("g.id, g.node_id, n.name AS node_name, g.idx, g.model, g.profile").Where("g.id IN (?)", bun.In(ids)).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("models: GPU names: %w", err)
	}
	for _, g := range rows {
		out[g.ID] = api.GPURef{ID: g.ID, Node: g.NodeName, Index: g.Index, Profile: g.Profile}
	}
	return out, nil
}

// GPURefsOf names the GPUs ids in names' order, sorted by node and
// index; a GPU names does not know keeps its id.
func GPURefsOf(ids []int64, names map[int64]api.GPURef) api.GPURefs {
	out := make(api.GPURefs, 0, len(ids))
	for _, id := range ids {
		r, ok := names[id]
		if !ok {
			r = api.GPURef{ID: id}
		}
		out = append(out, r)
	}
	sortGPURefs(out)
	return out
}

// sortGPURefs orders GPUs by node name, then index; ids alone last.
func sortGPURefs(rs api.GPURefs) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if (a.Node == "") != (b.Node == "") {
			return a.Node != ""
		}
		if a.Node != b.Node {
			return a.Node < b.Node
		}
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		return a.ID < b.ID
	})
}

// LiveJobGPUs names the GPUs each job holds now, for every job that holds
// any: one statement whose size is bounded by the cluster's GPUs, not by
// the number of jobs, so a page costs the same with ten jobs as with a
// thousand (and the same whether or not any job runs yet).
func LiveJobGPUs(ctx context.Context, db bun.IDB) (map[int64]api.GPURefs, error) {
	out := map[int64]api.GPURefs{}
	var rows []struct {
		JobID   int64  `bun:"job_id"`
		GPUID   int64  `bun:"gpu_id"`
		Node    string `bun:"node"`
		Index   int    `bun:"idx"`
		Profile string `bun:"profile"`
	}
	err := db.NewRaw(`SELECT a.job_id, a.gpu_id, n.name AS node, g.idx, g.profile FROM allocations a
JOIN gpus g ON g.id = a.gpu_id JOIN nodes n ON n.id = g.node_id
WHERE a.released_at IS NULL ORDER BY a.job_id, n.name, g.idx`).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("models: GPUs of running jobs: %w", err)
	}
	for _, r := range rows {
		out[r.JobID] = append(out[r.JobID], api.GPURef{ID: r.GPUID, Node: r.Node, Index: r.Index, Profile: r.Profile})
	}
	return out, nil
}
