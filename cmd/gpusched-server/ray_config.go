package main

import (
	"net/url"
	"strings"
	"time"
)

// RayConfig is the Ray cluster `serve` hands jobs of executor "ray" to.
type RayConfig struct {
	// Address is the Ray head's dashboard (GPUSCHED_RAY_ADDRESS, e.g.
	// http://ray-head:8265); empty: no Ray executor.
	Address string
	// AuthHeader is sent with every request to Ray, "Name: value"
	// (GPUSCHED_RAY_AUTH_HEADER, secret: also GPUSCHED_RAY_AUTH_HEADER_FILE).
	AuthHeader string
	// Nodes maps our node names to the IPs Ray knows them by
	// (GPUSCHED_RAY_NODES, "gpu-a=10.0.0.5,gpu-b=10.0.0.6"); a node not
	// listed is taken to be known to Ray by its hostname.
	Nodes map[string]string
	// LostAfter is how long jobs handed to Ray keep their GPUs while Ray does
	// not answer (GPUSCHED_RAY_LOST_AFTER, default 2m).
	LostAfter time.Duration
	// StopTimeout releases a stopped job's GPUs when Ray has not confirmed the
	// stop by then (GPUSCHED_RAY_STOP_TIMEOUT, default 1m).
	StopTimeout time.Duration
	// SyncEvery is how often Ray's statuses are polled (GPUSCHED_RAY_SYNC_INTERVAL, default 2s).
	SyncEvery time.Duration
}

// rayConfig reads the Ray settings and the default executor
// (GPUSCHED_DEFAULT_EXECUTOR: node, lease or ray; default ray when a Ray
// cluster is configured, else node).
func rayConfig(str func(flag, def string, vars ...string) string, dur func(string, time.Duration) time.Duration,
	fail func(string, ...any)) (RayConfig, string) {
	rc := RayConfig{
		Address:     strings.TrimRight(str("", "", "GPUSCHED_RAY_ADDRESS"), "/"),
		AuthHeader:  str("", "", "GPUSCHED_RAY_AUTH_HEADER"),
		LostAfter:   dur("GPUSCHED_RAY_LOST_AFTER", 2*time.Minute),
		StopTimeout: dur("GPUSCHED_RAY_STOP_TIMEOUT", time.Minute),
		SyncEvery:   dur("GPUSCHED_RAY_SYNC_INTERVAL", 2*time.Second),
	}
	if rc.Address != "" {
		if u, err := url.Parse(rc.Address); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			fail("GPUSCHED_RAY_ADDRESS=%q must be an http(s) URL like http://ray-head:8265", rc.Address)
		}
	}
	if rc.AuthHeader != "" {
		if name, _, ok := strings.Cut(rc.AuthHeader, ":"); !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t") {
			fail("GPUSCHED_RAY_AUTH_HEADER must read \"Name: value\", e.g. \"Authorization: Bearer …\"")
		}
	}
	for _, kv := range splitList(str("", "", "GPUSCHED_RAY_NODES")) {
		name, ip, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(ip) == "" {
			fail("GPUSCHED_RAY_NODES: %q is not node=ip", kv)
			continue
		}
		if rc.Nodes == nil {
			rc.Nodes = map[string]string{}
		}
		rc.Nodes[strings.TrimSpace(name)] = strings.TrimSpace(ip)
	}
	def := "node"
	if rc.Address != "" {
		def = "ray"
	}
	executor := str("", def, "GPUSCHED_DEFAULT_EXECUTOR")
	switch {
	case executor != "node" && executor != "lease" && executor != "ray":
		fail("GPUSCHED_DEFAULT_EXECUTOR=%q must be node, lease or ray", executor)
	case executor == "ray" && rc.Address == "":
		fail("GPUSCHED_DEFAULT_EXECUTOR=ray needs GPUSCHED_RAY_ADDRESS")
	}
	return rc, executor
}

// header splits AuthHeader into its name and value.
func (rc RayConfig) header() (string, string) {
	name, value, _ := strings.Cut(rc.AuthHeader, ":")
	return strings.TrimSpace(name), strings.TrimSpace(value)
}
