package gen

import (
	"fmt"
	"strings"
)

// syntheticCatalog writes a catalog of n rows. With rustShape set, the rows
// follow the published v1 catalog of the Rust implementation: every key
// present with explicit nulls, mcp as {name, http_read_role_eligible,
// tier} without input_schema, CLI rows with handler_rust, and free-form
// content under capability.
func syntheticCatalog(n int, rustShape bool) []byte {
	var b strings.Builder
	b.WriteString("x-vox-version: 1\nschema_version: 1\n")
	if rustShape {
		b.WriteString("capability:\n  planner: {lanes: [app, data], weights: {a: 1.5, b: 2}}\n  notes: free-form text\n")
	}
	b.WriteString("operations:\n")
	lanes := []string{"app", "workflow", "ai", "interop", "data", "platform"}
	classes := []string{"none", "read_only", "writes_files", "spawns_process", "network", "destructive"}
	for i := range n {
		id := fmt.Sprintf("area%d.op-%04d", i%17, i)
		fmt.Fprintf(&b, "  - id: %s\n", id)
		fmt.Fprintf(&b, "    title: Operation %d\n", i)
		fmt.Fprintf(&b, "    description: Performs operation number %d on the repository and reports what it did.\n", i)
		lane, class := lanes[i%len(lanes)], classes[i%len(classes)]
		if rustShape {
			b.WriteString("    description_human: null\n")
			fmt.Fprintf(&b, "    product_lane: %s\n", lane)
			b.WriteString("    intent_tags: [maintenance, repo]\n")
			fmt.Fprintf(&b, "    side_effect_class: %s\n", class)
			b.WriteString("    scope_kind: repository\n    reversible: null\n    requires_repo: true\n")
			b.WriteString("    preferred_for_models: null\n    human_takeover_friendly: false\n    mens_planner_visible: null\n")
			fmt.Fprintf(&b, "    canonical_name: op-%04d\n", i)
			fmt.Fprintf(&b, "    latin_aliases: [opus-%04d]\n", i)
			if i%3 != 2 {
				fmt.Fprintf(&b, "    mcp: {name: vox_op_%04d, http_read_role_eligible: %t, tier: %s}\n", i, i%2 == 0, []string{"core", "dev", "advanced"}[i%3])
			} else {
				b.WriteString("    mcp: null\n")
			}
			if i%3 != 0 {
				fmt.Fprintf(&b, "    cli:\n      path: [area%d, op-%04d]\n      status: active\n      latin_ns: null\n      handler_rust: crate::area%d::op_%04d\n      feature_gate: null\n      catalog_group: null\n      ref_cli_required: null\n      reachability_required: true\n", i%17, i, i%17, i)
			} else {
				b.WriteString("    cli: null\n")
			}
			continue
		}
		fmt.Fprintf(&b, "    product_lane: %s\n    side_effect_class: %s\n", lane, class)
		fmt.Fprintf(&b, "    mcp:\n      name: vox_op_%04d\n      exposure: core\n", i)
		b.WriteString("      input_schema:\n        type: object\n        properties:\n")
		b.WriteString("          path: {type: string, description: Repository-relative path.}\n")
		b.WriteString("          limit: {type: integer, minimum: 1, maximum: 100, default: 10}\n")
		b.WriteString("          dry_run: {type: boolean}\n")
		b.WriteString("        required: [path]\n        additionalProperties: false\n")
		fmt.Fprintf(&b, "    cli: {path: [op, \"%04d\"], status: active, handler: cmd/op.go}\n", i)
	}
	return []byte(b.String())
}
