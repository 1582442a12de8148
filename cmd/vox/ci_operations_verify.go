package main

import (
	"github.com/vox-lang/vox-mcp/runtime/gates"
)

func init() {
	registerGate(gate{
		name:    gates.OperationsVerifyName,
		summary: "check the catalog against the server's handlers, the vox commands and generated/catalog",
		run: func(root string, _ []string) *gates.Report {
			return gates.OperationsVerify(root, gates.Wiring{Commands: commandPaths()})
		},
	})
}
