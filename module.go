package voxmcp

import _ "embed" // the module files below

// GoMod and GoSum are this module's go.mod and go.sum, built into every
// binary. "vox gen app" copies their requirements and checksums into the
// module of an app it writes, so that the app builds offline from the
// module cache with the same dependency versions the product was tested
// with (docs/gen-app.md).
var (
	//go:embed go.mod
	GoMod []byte
	//go:embed go.sum
	GoSum []byte
)
