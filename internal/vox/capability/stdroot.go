package capability

import (
	"encoding/hex"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vox-lang/vox-mcp/internal/vox/eval"
	"github.com/zeebo/xxh3"
)

// ---- std's own members, agentos and the bare json.parse ----
//
// The reference's std.uuid, std.hash_fast (and crypto.hash_fast) and
// agentos.mutation_kind_for_tool, with the formats of
// ../shared/spec/22-vox-reference-fidelity.md §2.1 and §2.5.

// uuidCounter counts the calls of std.uuid in the process, from 0.
var uuidCounter atomic.Uint64

// stdUUID is `vox-<16 hex>-<16 hex>`: the Unix time in nanoseconds, then
// the process's counter, zero-padded lower-case hex, as the reference's
// (ordered and unique within a process, not random).
func stdUUID(*eval.Thread, *Config, []eval.Value) eval.Value {
	n := uuidCounter.Add(1) - 1
	return eval.Str("vox-" + hex16(uint64(time.Now().UnixNano())) + "-" + hex16(n))
}

func hex16(x uint64) string {
	s := strconv.FormatUint(x, 16)
	return strings.Repeat("0", 16-len(s)) + s
}

// stdHashFast is XXH3-128 of the UTF-8 bytes as 32 lower-case hex digits,
// the high half first: the reference's std.hash_fast and crypto.hash_fast
// (its Rust formats the u128 with {:032x}).
func stdHashFast(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s := strArg(th, "std", "hash_fast", args[0])
	th.Work(int64(len(s)))
	sum := xxh3.Hash128([]byte(s)).Bytes()
	return eval.Str(hex.EncodeToString(sum[:]))
}

// jsonParseValue is the bare json.parse of the reference: the value
// itself, or null (Unit) on bad JSON. std.json.parse (jsonParse) is the
// Result form.
func jsonParseValue(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	v, err := th.ParseJSON(strArg(th, "json", "parse", args[0]))
	if err != nil {
		return eval.Unit
	}
	return v
}

// The reference's lists of agent tools (spec 22 §2.5), checked before
// its rules by name.
var (
	externalTools = map[string]bool{
		"vox_run_shell": true, "vox_deploy": true, "vox_generate_code": true, "vox_speech_to_code": true,
		"vox_visual_rag_query": true, "vox_openclaw_gateway_call": true, "vox_openclaw_notify": true,
		"vox_openclaw_subscribe": true, "vox_openclaw_import_skill": true, "vox_submit_task": true,
		"vox_schola_submit": true,
	}
	localTools = map[string]bool{
		"vox_write_file": true, "vox_patch_file": true, "vox_inline_edit_file": true, "vox_multi_replace": true,
		"vox_multi_replace_file": true, "vox_delete_file": true, "vox_snapshot_restore": true, "vox_undo": true,
		"vox_redo": true, "vox_resolve_conflict": true, "vox_workspace_merge": true, "vox_change_create": true,
		"vox_commit_create": true, "vox_push": true, "vox_pr_open": true, "vox_force_push": true,
		"vox_branch_delete": true, "vox_project_init": true, "vox_complete_task": true, "vox_fail_task": true,
		"vox_doubt_task": true,
	}
)

// agentosMutationKind classifies a tool name as the reference does;
// like its interpreter, a non-string argument is read_only.
func agentosMutationKind(_ *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	if args[0].Kind() != eval.KStr {
		return eval.Str("read_only")
	}
	name := args[0].Str()
	switch {
	case externalTools[name]:
		return eval.Str("external_side_effect")
	case localTools[name]:
		return eval.Str("local_mutation")
	case strings.HasPrefix(name, "vox_browser_"), strings.HasPrefix(name, "vox_openclaw_"):
		return eval.Str("external_side_effect")
	case strings.Contains(name, "append"), strings.Contains(name, "insert"),
		strings.HasPrefix(name, "vox_db_") && strings.Contains(name, "upsert"):
		return eval.Str("local_mutation")
	}
	return eval.Str("read_only")
}
