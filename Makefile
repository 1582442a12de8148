# vox-mcp — run `make help` for the targets.

GO       ?= go
BIN      ?= bin
# Fuzz targets run briefly by `make fuzz` (and so by `make test`), as
# package:FuzzName. Add yours here.
FUZZ_TARGETS ?= ./internal/vox/syntax:FuzzLexer ./internal/vox/syntax:FuzzParse ./internal/vox/format:FuzzFormat ./internal/vox:FuzzCall ./internal/vox/check:FuzzCheck ./internal/vox/eval:FuzzDecodeJSON ./internal/skills:FuzzParse ./internal/skills:FuzzResourceURI ./runtime/workspace:FuzzParseConfig ./runtime/workspace:FuzzParseFixtures ./internal/contractdoc:FuzzReadYAML ./internal/lsp:FuzzReadMessage ./internal/lsp:FuzzHandle ./internal/lsp:FuzzApplyChanges ./internal/server/transport:FuzzDecodeHead
FUZZTIME ?= 3s

.DEFAULT_GOAL := help
.PHONY: help deps generate check-generated test lint fuzz cross test-windows bench load bench-fleet bench-peers build run release release-binaries packages check-packages vsix

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

deps: ## download the Go modules (also the Go SDK peer's of bench/peers/gosdk), install the end-to-end test client and the bundle tool mcpb (npm ci in e2e/), the VS Code extension's library and its packing and grammar-test tools (npm ci in editors/vscode/), redis-server for the fleet-mode tests, Prometheus for the metrics test, podman and runc for the container image test, Neovim for the editor test and Wine with mingw-w64 for the Windows tests (apt-get, when missing), prepare the Wine prefix (scripts/wine/setup), and build the OpenTelemetry Collector of the telemetry tests (make otelcol)
	$(GO) mod download
	@if ! command -v redis-server >/dev/null 2>&1; then \
		echo "installing redis-server (the fleet-mode tests start one)"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null || \
		{ $$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; }; \
	fi
	@if ! command -v podman >/dev/null 2>&1 || ! command -v runc >/dev/null 2>&1; then \
		echo "installing podman and runc (the container image test loads and runs the image)"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc >/dev/null || \
		{ $$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc >/dev/null; }; \
	fi
	@if ! command -v prometheus >/dev/null 2>&1; then \
		echo "installing prometheus (the metrics test has Debian's Prometheus scrape vox-mcp --metrics, e2e/metrics_test.go)"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null || \
		{ $$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null; }; \
	fi
	@if ! command -v nvim >/dev/null 2>&1; then \
		echo "installing neovim (the editor test drives vox lsp from Debian's Neovim, e2e/editors)"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null || \
		{ $$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null; }; \
	fi
	cd bench/peers/gosdk && $(GO) mod download
	@if [ -f e2e/package-lock.json ]; then cd e2e && npm ci --no-audit --no-fund; fi
	cd editors/vscode && npm ci --no-audit --no-fund
	scripts/wine/setup
	@$(MAKE) --no-print-directory otelcol

# otelcol builds the OpenTelemetry Collector that the telemetry tests
# start (internal/otelcoltest): the OTLP receiver and the file exporter,
# from the nested module internal/otelcoltest/otelcol, whose go.sum pins
# every module (the main module never sees it). A stamp of that module's
# files and the Go version skips the build when nothing changed; make
# test points the tests at the binary and fails them when it is missing.
OTELCOL     := $(abspath $(BIN))/otelcol
OTELCOL_SRC := internal/otelcoltest/otelcol
.PHONY: otelcol
otelcol: ## build the OpenTelemetry Collector of the telemetry tests into $(BIN)/otelcol (internal/otelcoltest/otelcol; done by make deps)
	@stamp="$$(cat $(OTELCOL_SRC)/go.mod $(OTELCOL_SRC)/go.sum $(OTELCOL_SRC)/*.go | sha256sum | cut -c1-16) $$($(GO) env GOVERSION)"; \
	if [ -x $(OTELCOL) ] && [ "$$(cat $(OTELCOL).stamp 2>/dev/null)" = "$$stamp" ]; then exit 0; fi; \
	echo "building the OpenTelemetry Collector of the telemetry tests into $(OTELCOL)"; \
	mkdir -p $(dir $(OTELCOL)) && rm -f $(OTELCOL).stamp && \
	cd $(OTELCOL_SRC) && $(GO) build -trimpath -o $(OTELCOL) . && printf '%s\n' "$$stamp" >$(OTELCOL).stamp

generate: ## regenerate every file under generated/
	$(GO) generate ./...

check-generated: ## regenerate, then fail if generated/ or the library's generated tables (internal/**/library.gen.go) differ from the commit
	$(GO) generate ./...
	@if [ -n "$$(git status --porcelain -- generated/ ':(glob)internal/**/library.gen.go')" ]; then \
		git status --porcelain -- generated/ ':(glob)internal/**/library.gen.go'; \
		echo "generated code is stale: run go generate ./... and commit the result"; \
		exit 1; \
	fi

lint: ## go vet, gofmt, go mod tidy -diff, and staticcheck and deadcode against lint/baseline.txt
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "not gofmt-formatted:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	{ $(GO) tool staticcheck ./... ; $(GO) tool deadcode -test ./... ; } >"$$tmp/all" 2>&1; \
	sed -E 's/^([^ :]+):[0-9]+:[0-9]+: /\1: /' "$$tmp/all" | sort -u >"$$tmp/found"; \
	grep -v '^#' lint/baseline.txt | grep . | sort -u >"$$tmp/baseline"; \
	new=$$(comm -23 "$$tmp/found" "$$tmp/baseline"); \
	if [ -n "$$new" ]; then echo "new staticcheck or deadcode findings: fix them, or add a reviewed line to lint/baseline.txt"; echo "$$new"; exit 1; fi; \
	echo "staticcheck and deadcode: nothing beyond lint/baseline.txt"

# A fuzz run that ends with only "context deadline exceeded" and no failing
# input is Go's coordinator racing its own -fuzztime deadline (internal/fuzz
# compares the deadline's error with its workers' context before that
# context is cancelled; seen on a loaded machine): that target runs once
# more. Any other failure, or that one twice, fails (docs/architecture.md §6).
fuzz: ## run every fuzz target for $(FUZZTIME)
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		for try in 1 2; do \
			echo "fuzz $$pkg $$name"; \
			out=$$($(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg 2>&1); rc=$$?; \
			printf '%s\n' "$$out"; \
			[ $$rc -eq 0 ] && break; \
			if [ $$try -eq 1 ] && printf '%s\n' "$$out" | grep -qx '    context deadline exceeded' \
				&& ! printf '%s\n' "$$out" | grep -q 'Failing input written'; then \
				echo "fuzz $$name: Go's fuzz coordinator reported its own deadline, not a failure of the target; once more"; continue; \
			fi; \
			exit 1; \
		done; \
	done

# make test fails the fleet-mode tests when redis-server is missing, rather
# than skipping them (internal/fleet/redistest), the container image test
# when podman is (e2e/container), the Neovim test when nvim is
# (e2e/editors), the Prometheus test when prometheus is
# (e2e/metrics_test.go), the telemetry tests when the OpenTelemetry Collector
# that make deps builds is (internal/otelcoltest), and the Windows tests
# when Wine is (test-windows). The
# editor tests (e2e/editors: the VS Code grammar's goldens, the .vsix
# packed with vsce and checked, Neovim driving vox lsp) run in go test.
test: export VOX_TEST_REQUIRE_REDIS = 1
test: export VOX_TEST_REQUIRE_PODMAN = 1
test: export VOX_TEST_REQUIRE_NVIM = 1
test: export VOX_TEST_REQUIRE_OTELCOL = 1
test: export VOX_TEST_OTELCOL = $(OTELCOL)
test: export VOX_TEST_REQUIRE_PROMETHEUS = 1
test: deps lint check-generated ## the full test run of CI: installs, vet, cross-compiles, install routes, race tests (with the editor tests: the VS Code extension packed and its grammar checked, Neovim as an LSP client), Windows tests under Wine, fuzz, drift check, gates
	$(MAKE) cross
	$(MAKE) check-packages
	$(GO) test -race -timeout 25m ./...
	$(MAKE) test-windows
	$(MAKE) fuzz
	$(GO) run ./cmd/vox ci all

# The packages whose code or tests differ by platform: cross type-checks
# their tests for every release target.
PLATFORM_PKGS ?= ./internal/safefs ./runtime/workspace ./internal/vox/capability ./internal/skills

# cross compiles both binaries, and the tests of CROSS_PKGS, for every
# release target without linking (go vet type-checks each package from
# its dependencies' compiled export data, and caches both): what `make
# release` would fail on, at a fraction of its cost (docs/platforms.md).
CROSS_PKGS ?= ./cmd/vox ./cmd/vox-mcp $(PLATFORM_PKGS) ./internal/sandbox/... ./internal/trust ./internal/server
cross: ## compile vox and vox-mcp and type-check the platform packages' tests for every release target (no linking)
	@set -e; for p in $(PLATFORMS); do \
		echo "cross $$p"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet $(CROSS_PKGS); \
	done

# test-windows runs the tests of WINE_PKGS built for windows/amd64 under
# Wine (scripts/wine/exec: one Wine start per package), then the stdio
# smoke of vox-mcp.exe under Wine (e2e/wine). -tags wine links
# internal/wineshim into the package tests, which
# -checklinkname=0 allows: it switches Go's file deletion to the way Wine
# 8.0 implements, and skips the tests that need the symbolic links they
# make (Wine 8.0's CreateSymbolicLinkW is a stub). Both fail, not skip, when Wine or its prefix is missing:
# make deps installs and prepares them (docs/platforms.md).
WINE_PKGS ?= ./internal/vox/capability ./internal/safefs ./runtime/workspace ./internal/skills ./internal/sandbox
test-windows: export VOX_TEST_WINE = $(CURDIR)/scripts/wine/exec
test-windows: export VOX_TEST_REQUIRE_WINE = 1
test-windows: ## run the platform packages' tests for windows/amd64 under Wine, and the stdio smoke of vox-mcp.exe
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) test -tags wine -ldflags=-checklinkname=0 \
		-exec $(CURDIR)/scripts/wine/exec -timeout 10m $(WINE_PKGS)
	$(GO) test -count=1 -timeout 10m ./e2e/wine

BENCH ?= .
BENCHCOUNT ?= 6

bench: ## run the benchmarks into bench.txt and summarise them with benchstat (BENCH=regexp, BENCHCOUNT=n)
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(BENCHCOUNT) -timeout 120m ./... | tee bench.txt
	$(GO) tool benchstat bench.txt

load: ## measure vox-mcp under load: tools/call req/s and p50/p99 (catalog and workspace tool, HTTP and stdio), idle RSS
	$(GO) test -run '^$$' -bench 'BenchmarkToolsCall' -benchtime 2000x -count 3 ./e2e
	$(GO) test -run '^$$' -bench 'BenchmarkIdleRSS' -benchtime 3x ./e2e

bench-fleet: ## fleet mode under load: tools/call req/s and p50/p99 through a round-robin proxy to one instance and to two sharing a redis-server (docs/benchmarks.md)
	$(GO) test -run '^$$' -bench 'BenchmarkFleet' -benchtime 3000x -count 3 ./e2e

# Flags of the peer benchmark, e.g. PEERS_ARGS=-quick for a smoke run, or
# PEERS_ARGS='-rounds 7 -calls 5000'; `go run ./bench/peers/cmd/bench-peers
# -h` lists them.
PEERS_ARGS ?=

bench-peers: ## measure vox-mcp (telemetry off and on) beside a bare mcp-go server, the Go SDK and the TS SDK, interleaved: one table of ratios to the floor in bench-peers.md and .json (docs/benchmarks.md; PEERS_ARGS=-quick)
	@if [ ! -f e2e/node_modules/@modelcontextprotocol/sdk/package.json ]; then cd e2e && npm ci --no-audit --no-fund; fi
	$(GO) run ./bench/peers/cmd/bench-peers $(PEERS_ARGS)

build: ## build vox and vox-mcp into bin/
	$(GO) build -o $(BIN)/ ./cmd/vox ./cmd/vox-mcp

run: build ## build and run vox-mcp over stdio on this repository
	./$(BIN)/vox-mcp --root .

# vsix packs the VS Code extension (editors/vscode) with the vsce pinned
# there; --skip-license because the repository has no licence file
# (editors/vscode/README.md, Licence).
vsix: ## pack the VS Code extension into $(DIST)/vox.vsix (npm ci in editors/vscode when needed; install it with code --install-extension)
	@[ -x editors/vscode/node_modules/.bin/vsce ] || { cd editors/vscode && npm ci --no-audit --no-fund; }
	@mkdir -p $(DIST)
	cd editors/vscode && node_modules/.bin/vsce package --skip-license --out $(CURDIR)/$(DIST)/vox.vsix

# Release builds: every binary for every platform, reproducibly — the same
# commit gives the same bytes whatever the checkout path or build cache
# (-trimpath, no VCS stamping, no cgo); version and commit go in through
# -ldflags, so `vox-mcp --version` prints them.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
DIST      ?= dist
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
BINARIES  ?= vox-mcp vox
BUILDINFO := github.com/vox-lang/vox-mcp/internal/buildinfo
RELEASE_LDFLAGS := -s -w -X $(BUILDINFO).version=$(VERSION) -X $(BUILDINFO).commit=$(COMMIT)

release-binaries: ## cross-compile $(BINARIES) for $(PLATFORMS) into $(DIST)/ with SHA256SUMS (VERSION=..., COMMIT=...)
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ "$$os" = windows ] && ext=.exe; \
		for b in $(BINARIES); do \
			echo "$(DIST)/$$b-$$os-$$arch$$ext"; \
			CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -buildvcs=false \
				-ldflags '$(RELEASE_LDFLAGS)' -o $(DIST)/$$b-$$os-$$arch$$ext ./cmd/$$b; \
		done; \
	done
	@$(MAKE) --no-print-directory sums DIST=$(DIST)
	@echo "$(DIST)/SHA256SUMS ($(VERSION) $(COMMIT))"

.PHONY: sums
sums:
	@cd $(DIST) && files=$$(ls | grep -vx SHA256SUMS) && \
		if command -v sha256sum >/dev/null; then sha256sum -- $$files; else shasum -a 256 -- $$files; fi > SHA256SUMS

# The install routes (docs/platforms.md, "Install routes"), made by
# internal/cmd/vox-release from the vox-mcp binaries in $(DIST): an MCP
# Bundle per platform (the manifest checked with `mcpb validate`, packed
# with `mcpb pack`, both from e2e/node_modules: make deps), a container
# image per linux platform (a docker-archive, from scratch, with the build
# host's CA certificates), then server.json listing them, validated
# against the MCP Registry's schema and rules.
IMAGE    ?= ghcr.io/vox-lang/vox-mcp
CA_CERTS ?= $(wildcard /etc/ssl/certs/ca-certificates.crt)
MCPB     := PATH="$(CURDIR)/e2e/node_modules/.bin:$$PATH" mcpb
RELEASE_TOOL := $(GO) run ./internal/cmd/vox-release
packages: ## build the MCP Bundles, container images and server.json from the vox-mcp binaries in $(DIST)/
	@[ -x e2e/node_modules/.bin/mcpb ] || { echo "e2e/node_modules/.bin/mcpb is missing: run make deps"; exit 1; }
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) build -o $$tmp/vox-release ./internal/cmd/vox-release; \
	images=; \
	for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ "$$os" = windows ] && ext=.exe; \
		bin=$(DIST)/vox-mcp-$$os-$$arch$$ext; [ -f $$bin ] || continue; \
		$$tmp/vox-release bundle-dir -platform $$p -version $(VERSION) -binary $$bin -out $$tmp/$$os-$$arch; \
		$(MCPB) validate $$tmp/$$os-$$arch/manifest.json; \
		$(MCPB) pack $$tmp/$$os-$$arch $(DIST)/vox-mcp-$$os-$$arch.mcpb >/dev/null; \
		echo "$(DIST)/vox-mcp-$$os-$$arch.mcpb"; \
		if [ "$$os" = linux ]; then \
			$$tmp/vox-release image -arch $$arch -binary $$bin -version $(VERSION) \
				-tag $(IMAGE):$$(echo $(VERSION) | sed 's/^v\([0-9]\)/\1/') $(if $(CA_CERTS),-ca $(CA_CERTS)) \
				-out $(DIST)/vox-mcp-image-linux-$$arch.tar; \
			echo "$(DIST)/vox-mcp-image-linux-$$arch.tar"; images=1; \
		fi; \
	done; \
	$$tmp/vox-release server-json -version $(VERSION) -dist $(DIST) $${images:+-image $(IMAGE)} -out $(DIST)/server.json; \
	$$tmp/vox-release validate-server-json $(DIST)/server.json
	@$(MAKE) --no-print-directory sums DIST=$(DIST)

release: release-binaries ## make release-binaries, then the install routes (make packages): bundles, images and server.json, validated
	@$(MAKE) --no-print-directory packages DIST=$(DIST) VERSION=$(VERSION) PLATFORMS='$(PLATFORMS)'

# check-packages is what CI proves of the install routes without building
# the twelve release binaries: the manifest of every platform passes `mcpb
# validate`, and the whole of `make release` for linux/amd64's vox-mcp
# (its bundle packed, its image, server.json validated) succeeds.
check-packages: ## validate every platform's bundle manifest, and run make release for linux/amd64's vox-mcp into a temporary folder
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	for p in $(PLATFORMS); do \
		$(RELEASE_TOOL) manifest -platform $$p -version $(VERSION) > $$tmp/manifest-$${p%/*}-$${p#*/}.json; \
		printf '%s: ' "$$p"; $(MCPB) validate $$tmp/manifest-$${p%/*}-$${p#*/}.json; \
	done; \
	$(MAKE) --no-print-directory release PLATFORMS=linux/amd64 BINARIES=vox-mcp DIST=$$tmp/dist
