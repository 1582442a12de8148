//go:build race

package sandbox

// initEnv is the init's whole environment. A race-enabled binary sleeps a
// second at exit by default (GORACE atexit_sleep_ms), which would delay every
// run and keep the command's leftover processes alive that long.
var initEnv = []string{"GORACE=atexit_sleep_ms=0"}
