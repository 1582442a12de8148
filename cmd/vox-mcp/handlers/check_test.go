package handlers_test

import (
	"encoding/json"
	"testing"
)

// vox_check over MCP returns what vox check --format json does: each
// diagnostic with its help lines and fixes, ok false on a checker error.
func TestVoxCheckHelpAndFixes(t *testing.T) {
	s := newServer(t)
	src := "@tool \"t\"\nfn t(xs: list[int]) to int {\n    let total = xs.len()\n    totl\n}\n"
	args, _ := json.Marshal(map[string]string{"source": src})
	text, isErr, _ := toolResult(t, callTool(t, s, "vox_check", string(args)))
	if isErr {
		t.Fatal(text)
	}
	var res struct {
		OK          bool `json:"ok"`
		Diagnostics []struct {
			Line, Col int
			Code      string            `json:"code"`
			Help      []string          `json:"help"`
			Fixes     []json.RawMessage `json:"fixes"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(text), &res); err != nil || res.OK || len(res.Diagnostics) != 2 {
		t.Fatalf("%v %s", err, text)
	}
	var undefined, unused bool
	for _, d := range res.Diagnostics {
		switch d.Code {
		case "vox/name/undefined":
			undefined = d.Line == 4 && d.Col == 5 && len(d.Help) == 1 && d.Help[0] == "did you mean total?" &&
				len(d.Fixes) == 1 && string(d.Fixes[0]) == `{"line":4,"col":5,"end_line":4,"end_col":9,"new_text":"total"}`
		case "vox/name/unused":
			unused = len(d.Help) == 1 && len(d.Fixes) == 1
		}
	}
	if !undefined || !unused {
		t.Errorf("diagnostics: %s", text)
	}
}
