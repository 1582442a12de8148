//go:build linux && !amd64

package main

// archCalls: only x86-64 numbers the old module calls.
var archCalls []call
