// Package api is the wire contract of GPUScheduler's HTTP API: every JSON
// request and response body, the job state names and the error body with
// its codes, defined once. The server's handlers build these types and the
// clients (the CLI, the node agent, the client agent) decode them, so the
// two sides cannot drift apart. It imports only the standard library; the
// Go client that sends them is internal/apiclient.
//
// Field names are snake_case and times RFC 3339 in UTC. A few request
// fields accept more than one spelling (a priority's number or name, a
// duration's seconds or "2h30m"): their named types (Priority, Seconds)
// read every spelling and hold one typed value.
package api
