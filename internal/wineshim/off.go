//go:build !wine

package wineshim

// Wine says the test binary was built to run under Wine (-tags wine).
const Wine = false
