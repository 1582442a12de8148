// Package peers is the peer benchmark behind `make bench-peers`
// (docs/benchmarks.md): the same work — a tools/call of add(a, b), a
// tools/list of 500 tools, a cold start — measured on vox-mcp and on three
// peers, interleaved round by round (A B C D A B C D …), and reported as one
// Markdown table of ratios to the floor, with a JSON record beside it.
//
// The peers are a bare mcp-go server (the floor: bench/peers/floor), the
// official Go SDK (bench/peers/gosdk, a module of its own) and the official
// TypeScript SDK (bench/peers/tssdk, run on the Node.js pinned in e2e/).
// One client drives them all, written here on purpose: it speaks raw
// JSON-RPC over stdio and over streamable HTTP, so what it costs is the
// same for every server, and no library's client favours its own server.
//
// vox-mcp is measured twice, with its telemetry off (its default) and on
// (an OTLP endpoint, a sink of the run's own, and --metrics), so the
// report reads the telemetry's cost as on ÷ off (otelsink.go).
//
// The benchmark reads resident memory from /proc and so measures on Linux.
package peers
