package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/vox-lang/vox-mcp/internal/vox"
)

// limitFlags are the interpreter's maxima: each a flag --limit-<key>
// whose default comes from VOX_MCP_LIMIT_<KEY>, then from
// vox.DefaultMaxima. A repository's scan config may only lower them
// (docs/vox-language.md, Limits).
type limitFlags struct {
	steps, depth, timeoutMS, output, value, alloc, waitMS *int64
	concurrent                                            *int64
	envErr                                                error
}

func addLimitFlags(fs *flag.FlagSet) *limitFlags {
	def := vox.DefaultMaxima()
	l := &limitFlags{}
	add := func(key string, dflt int64, usage string) *int64 {
		name := strings.ReplaceAll(key, "_", "-")
		env := "VOX_MCP_LIMIT_" + strings.ToUpper(key)
		if key == "concurrent_calls" {
			name, env = "max-concurrent-calls", "VOX_MCP_MAX_CONCURRENT_CALLS"
		} else {
			name = "limit-" + name
		}
		if v, ok := os.LookupEnv(env); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n <= 0 {
				l.envErr = fmt.Errorf("%s: want a positive integer, got %q", env, v)
			} else {
				dflt = n
			}
		}
		return fs.Int64(name, dflt, usage+" (also "+env+")")
	}
	l.steps = add("steps", def.Limits.Steps, "the most steps a workspace call may take")
	l.timeoutMS = add("timeout_ms", def.Limits.Timeout.Milliseconds(), "the longest a workspace call may run, in milliseconds, waiting for a slot included")
	l.depth = add("max_depth", int64(def.Limits.MaxDepth), "the deepest call stack of a workspace call (at most 10000)")
	l.output = add("max_output_bytes", def.Limits.MaxOutputBytes, "the largest JSON result of a workspace call")
	l.value = add("max_value_bytes", def.Limits.MaxValueBytes, "the largest single string, list or map a workspace call may build")
	l.alloc = add("max_alloc_bytes", def.Limits.MaxAllocBytes, "the bytes of values one workspace call may allocate in all")
	l.waitMS = add("wait_ms", def.Limits.Wait.Milliseconds(), "the longest a workspace call waits for each answer of its client to elicit() or sample(), in milliseconds; the call's other limits pause meanwhile")
	l.concurrent = add("concurrent_calls", int64(def.ConcurrentCalls), "how many workspace calls run at once; more wait up to their timeout")
	return l
}

// apply checks the values and sets them as the process's maxima.
func (l *limitFlags) apply() error {
	if l.envErr != nil {
		return l.envErr
	}
	for _, v := range []*int64{l.steps, l.depth, l.timeoutMS, l.output, l.value, l.alloc, l.waitMS, l.concurrent} {
		if *v <= 0 {
			return fmt.Errorf("every --limit-* and --max-concurrent-calls must be positive: a limit cannot be lifted")
		}
	}
	vox.SetMaxima(vox.Maxima{
		Limits: vox.Limits{
			Steps: *l.steps, MaxDepth: int(min(*l.depth, 10000)), Timeout: time.Duration(*l.timeoutMS) * time.Millisecond,
			MaxOutputBytes: *l.output, MaxValueBytes: *l.value, MaxAllocBytes: *l.alloc,
			Wait: time.Duration(*l.waitMS) * time.Millisecond,
		},
		ConcurrentCalls: int(min(*l.concurrent, 1<<20)),
		Hint:            "vox-mcp --max-concurrent-calls or VOX_MCP_MAX_CONCURRENT_CALLS raises it",
	})
	return nil
}
