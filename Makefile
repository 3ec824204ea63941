# GPUScheduler — `make help` lists the targets.

TEMPL_VERSION := v0.3.977
TEMPL := go run github.com/a-h/templ/cmd/templ@$(TEMPL_VERSION)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
GO_TEST_FLAGS ?=

.PHONY: help run build test generate check-generated lint bench clean

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## Build bin/gpusched
	go build -ldflags "$(LDFLAGS)" -o bin/gpusched ./cmd/gpusched

run: build ## Build and start `gpusched serve --dev` (embedded PostgreSQL, simulated nodes); prints the URL
	./bin/gpusched serve --dev

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

bench: ## Benchmarks: the scheduling core's pass; HTTP with 16 clients (probes, status, submissions, release→start)
	go test -run '^$$' -bench BenchmarkPass -benchmem ./internal/scheduler
	go test -run '^$$' -bench . -benchtime 5s ./web/

clean: ## Remove build output (keeps .data)
	rm -rf bin
