package main

import "github.com/vox-lang/vox-mcp/runtime/gates"

// "vox ci agentskills-compliance [--root DIR] [--json] [FOLDER...]" checks
// the workspace's skill folders, and the folders given (a skill folder or a
// folder of skill folders), against the Agent Skills format.
func init() {
	registerGate(gate{
		name:    gates.AgentSkillsGate,
		summary: "check skill folders against the Agent Skills format (reference validator rules)",
		run: func(root string, args []string) *gates.Report {
			return gates.AgentSkillsCompliance(root, args, servedCatalogTools())
		},
		takesArgs: true,
	})
}
