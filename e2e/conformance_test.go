package e2e

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

const conformanceBaseline = "conformance-baseline.yml"

// The two pinned releases of the conformance suite (package.json): 0.1.16
// as @modelcontextprotocol/conformance and 0.2.0-alpha.12, for protocol
// 2026-07-28, under the alias conformance-next. Both install a bin named
// conformance, so they are run by their entry points, never through
// node_modules/.bin.
const (
	conformanceStable = "node_modules/@modelcontextprotocol/conformance"
	conformanceNext   = "node_modules/conformance-next"
)

// TestConformance runs the MCP conformance suite (server mode, every
// scenario) against vox-mcp over streamable HTTP and holds the result to
// the baseline: a failing scenario must be listed, with the reason on its
// line, and a listed scenario must still fail.
func TestConformance(t *testing.T) {
	node := node22(t)
	baseline := readBaseline(t, conformanceBaseline)
	srv := startHTTP(t)
	results := t.TempDir()
	out, runErr := runNode(t, 5*time.Minute, serverEnv(t), node,
		conformanceEntry(t, conformanceStable, "0.1.16"), "server",
		"--url", srv.URL, "--suite", "all", "--output-dir", results,
		"--expected-failures", conformanceBaseline)
	t.Logf("conformance suite output:\n%s", out)

	outcomes, err := readConformanceResults(results)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) == 0 {
		t.Fatalf("the conformance suite ran no scenario (%v)", runErr)
	}
	var problems []string
	for _, name := range sortedKeys(outcomes) {
		failures := outcomes[name]
		_, expected := baseline[name]
		switch {
		case len(failures) > 0 && !expected:
			problems = append(problems, fmt.Sprintf("unexpected failure of %s: %s", name, strings.Join(failures, "; ")))
		case len(failures) == 0 && expected:
			problems = append(problems, fmt.Sprintf("%s passes now: remove it from %s", name, conformanceBaseline))
		}
	}
	for _, name := range sortedKeys(baseline) {
		if _, ran := outcomes[name]; !ran {
			problems = append(problems, fmt.Sprintf("%s is in %s but the suite has no such scenario: remove it", name, conformanceBaseline))
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
	// The suite judges the same baseline; its verdict must agree.
	if len(problems) == 0 && runErr != nil {
		t.Errorf("the conformance suite failed although every outcome matches the baseline: %v", runErr)
	}
	t.Logf("%d scenarios: %d pass, %d expected failures", len(outcomes), len(outcomes)-len(baseline), len(baseline))
}

// readBaseline reads the server scenarios of the expected-failures file
// with the reason each one's line comment gives; an entry without a reason
// fails the test.
func readBaseline(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		t.Fatalf("%s: want a mapping with a server list", path)
	}
	top := doc.Content[0]
	out := map[string]string{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, list := top.Content[i], top.Content[i+1]
		if key.Value != "server" {
			t.Errorf("%s:%d: only server scenarios are run, not %s", path, key.Line, key.Value)
			continue
		}
		if list.Kind != yaml.SequenceNode {
			t.Fatalf("%s:%d: server must be a list of scenario names", path, list.Line)
		}
		for _, item := range list.Content {
			reason := strings.TrimSpace(strings.TrimPrefix(item.LineComment, "#"))
			if reason == "" {
				t.Errorf("%s:%d: %s has no reason: say why it is expected in a comment on its line", path, item.Line, item.Value)
			}
			if _, dup := out[item.Value]; dup {
				t.Errorf("%s:%d: %s is listed twice", path, item.Line, item.Value)
			}
			out[item.Value] = reason
		}
	}
	return out
}

// resultDir is the suite's folder per scenario: server-<scenario>-<timestamp>.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[0-9-]+Z$`)

// readConformanceResults maps each scenario that ran to its failed checks.
// As in the suite, a check with status FAILURE or WARNING fails its
// scenario.
func readConformanceResults(dir string) (map[string][]string, error) {
	checks, err := readConformanceChecks(dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for name, cs := range checks {
		failures := []string{}
		for _, c := range cs {
			if c.Status == "FAILURE" || c.Status == "WARNING" {
				failures = append(failures, fmt.Sprintf("%s %s: %s", c.ID, c.Status, c.ErrorMessage))
			}
		}
		out[name] = failures
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
