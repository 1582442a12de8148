//go:build !race

package sandbox

// initEnv is the init's whole environment: nothing of the host's.
var initEnv = []string{}
