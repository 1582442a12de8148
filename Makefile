# vox-mcp — run `make help` for the targets.

GO       ?= go
BIN      ?= bin
# Fuzz targets run briefly by `make fuzz` (and so by `make test`), as
# package:FuzzName. Add yours here.
FUZZ_TARGETS ?= ./runtime/vox/syntax:FuzzLexer ./runtime/vox/syntax:FuzzParse ./runtime/vox:FuzzCall ./runtime/vox/eval:FuzzDecodeJSON ./runtime/skills:FuzzParse ./runtime/skills:FuzzResourceURI
FUZZTIME ?= 3s

.DEFAULT_GOAL := help
.PHONY: help deps generate check-generated test lint fuzz e2e-deps bench build run release

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

deps: ## download the Go modules and install the end-to-end test client (npm ci in e2e/)
	$(GO) mod download
	@if [ -f e2e/package-lock.json ]; then cd e2e && npm ci --no-audit --no-fund; fi

generate: ## regenerate every file under generated/
	$(GO) generate ./...

check-generated: ## regenerate, then fail if generated/ differs from the commit
	$(GO) generate ./...
	@if [ -n "$$(git status --porcelain -- generated/)" ]; then \
		git status --porcelain -- generated/; \
		echo "generated/ is stale: run go generate ./... and commit the result"; \
		exit 1; \
	fi

lint: ## go vet, gofmt and go mod tidy -diff
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "not gofmt-formatted:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff

fuzz: ## run every fuzz target for $(FUZZTIME)
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

test: deps lint check-generated ## the full test run of CI: installs, vet, race tests, fuzz, drift check, gates
	$(GO) test -race -timeout 25m ./...
	$(MAKE) fuzz
	$(GO) run ./cmd/vox ci all

BENCH ?= .
BENCHCOUNT ?= 6

bench: ## run the benchmarks into bench.txt and summarise them with benchstat (BENCH=regexp, BENCHCOUNT=n)
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(BENCHCOUNT) -timeout 120m ./... | tee bench.txt
	$(GO) tool benchstat bench.txt

build: ## build vox and vox-mcp into bin/
	$(GO) build -o $(BIN)/ ./cmd/vox ./cmd/vox-mcp

run: build ## build and run vox-mcp over stdio on this repository
	./$(BIN)/vox-mcp --root .
