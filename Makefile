# GPUScheduler — `make help` lists the targets.

TEMPL_VERSION := v0.3.977
TEMPL := go run github.com/a-h/templ/cmd/templ@$(TEMPL_VERSION)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)
GO_TEST_FLAGS ?=
# go-nvml's cgo prologue calls NVML functions that NVIDIA marked deprecated; the
# warnings say nothing about this code.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

.PHONY: help run build test generate check-generated lint bench clean dist release release-bin check-deploy gpu-proof

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## Build bin/gpusched (the CLI: client commands, static) and bin/gpusched-server (everything: serve, node, migrate, user, token, sim)
	CGO_ENABLED=0 go build -ldflags "$(LDFLAGS)" -o bin/gpusched ./cmd/gpusched
	go build -ldflags "$(LDFLAGS)" -o bin/gpusched-server ./cmd/gpusched-server

run: build ## Build and start `gpusched serve --dev` (embedded PostgreSQL, simulated nodes); prints the URL
	./bin/gpusched-server serve --dev

test: lint check-generated ## go vet, generated code current, the whole suite with -race (needs PostgreSQL binaries and Chromium)
	go test -race -count=1 $(GO_TEST_FLAGS) ./...

generate: ## Regenerate templ views (pinned templ version)
	$(TEMPL) generate -path views

check-generated: ## Fail if the committed *_templ.go files are not what templ generates
	@tmp=$$(mktemp -d) && cp -r views "$$tmp/" && \
	$(TEMPL) generate -path "$$tmp/views" >/dev/null 2>&1 && \
	if diff -r -q views "$$tmp/views" >/dev/null; then rm -rf "$$tmp"; \
	else diff -r views "$$tmp/views" | head -20; rm -rf "$$tmp"; echo "generated views are stale: run make generate"; exit 1; fi

lint: ## gofmt and go vet
	@bad=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go') | grep -v '_templ.go$$' || true); \
	if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	go vet ./...

bench: ## Benchmarks: the scheduling core's pass; HTTP with 16 clients (probes, status, submissions, release→start); pages with 1,000 jobs; 200 SSE subscribers for 60 s
	go test -run '^$$' -bench BenchmarkPass -benchmem ./internal/scheduler
	go test -run '^$$' -bench . -skip 'BenchmarkSSE|Page$$|BenchmarkSubmitScheduling|BenchmarkHeartbeats' -benchtime 5s ./web/
	go test -run '^$$' -bench 'Page$$' -benchtime 1000x ./web/
	go test -run '^$$' -bench BenchmarkSSESubscribers -benchtime 60x ./web/
	# scale: change → browser latency, 200 subscribers, 100 changes/s for 10 s
	go test -run '^$$' -bench BenchmarkSSELatency -benchtime 1000x ./web/
	# scale: submissions with scheduling running and 2 node agents beside pgbench's raw INSERT (same run), p99 at 200/s
	go test -run '^$$' -bench BenchmarkSubmitScheduling -benchtime 10000x ./web/
	# scale: whole passes with the database (1,000 pending / 16 GPUs; 10,000 / 1,024 GPUs on 128 nodes)
	go test -run '^$$' -bench BenchmarkPassDB -benchtime 30x ./jobs/
	# scale: 128 node agents heartbeating every 2 s: CPU of the server process and of its PostgreSQL backends
	go test -run '^$$' -bench BenchmarkHeartbeats -benchtime 15x ./web/

AGENT_PLATFORMS := linux/amd64 linux/arm64 darwin/arm64 windows/amd64

dist: ## Cross-compile gpusched-agent into dist/ (linux/amd64, linux/arm64, darwin/arm64, windows/amd64) with SHA256SUMS
	@rm -rf dist && mkdir -p dist
	@for p in $(AGENT_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		echo "  gpusched-agent $$os/$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch go build -trimpath -ldflags "-s -w $(LDFLAGS)" \
			-o dist/gpusched-agent-$(VERSION)-$$os-$$arch$$ext ./cmd/gpusched-agent || exit 1; \
	done
	@cp deploy/gpusched-agent.service deploy/io.gpuscheduler.agent.plist dist/
	@cd dist && (command -v sha256sum >/dev/null && sha256sum gpusched-agent* io.* || shasum -a 256 gpusched-agent* io.*) > SHA256SUMS.tmp && \
		mv SHA256SUMS.tmp SHA256SUMS && cat SHA256SUMS

# --- operations: releases and deployment checks ---
release: ## Versioned tarballs of gpusched (linux amd64/arm64) and gpusched-agent (linux/darwin amd64/arm64) in dist/release, SHA256SUMS, signed with GPUSCHED_SIGNING_KEY
	VERSION=$(VERSION) COMMIT=$(COMMIT) ./release/build.sh

release-bin: ## The release build of gpusched (client, static) and gpusched-server for this platform into bin/ (what the Dockerfile runs)
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $(LDFLAGS)" -o bin/gpusched ./cmd/gpusched
	CGO_ENABLED=$${CGO_ENABLED:-1} go build -trimpath -ldflags "-s -w $(LDFLAGS)" -o bin/gpusched-server ./cmd/gpusched-server

check-deploy: ## Validate deploy/ (systemd units, Caddyfile, nginx, compose, Dockerfile, alert rules) with every validator installed
	./deploy/check.sh
# --- end operations ---

GPU_PROOF := .gpu-proof

gpu-proof: ## Build into .gpu-proof/ what proves the NVML code on a GPU host: gpusched-server (cgo), the internal/gpu test binary, run.sh; copy the folder there and run ./run.sh
	@rm -rf $(GPU_PROOF) && mkdir -p $(GPU_PROOF)
	CGO_ENABLED=1 go build -ldflags "$(LDFLAGS)" -o $(GPU_PROOF)/gpusched-server ./cmd/gpusched-server
	CGO_ENABLED=1 go test -c -o $(GPU_PROOF)/gpu.test ./internal/gpu
	cp deploy/gpu-proof/run.sh deploy/gpu-proof/holder.py deploy/gpu-proof/holder.cu $(GPU_PROOF)/
	@echo "built $(GPU_PROOF)/: copy it to a GPU host (scp -r $(GPU_PROOF) host:gpu-proof) and run ./run.sh there; it writes report.md beside itself"

clean: ## Remove build output (keeps .data)
	rm -rf bin dist $(GPU_PROOF)
