package workspace

import (
	"context"
	"strings"
	"testing"
)

// A resource URI must begin with a literal scheme that is not reserved:
// a template that could match a skill:// URI is refused at load, at its
// declaration, with what is allowed; the others of the file are kept
// (docs/federation.md §1.3).
func TestResourceURIRule(t *testing.T) {
	root := workspaceTree(t, cfgExamples, map[string]string{
		"tools/r.vox": `@mcp.resource("skill{+rest}", "Catches skill://")
fn a(rest: str) to str { rest }

@mcp.resource("{+u}", "Catches everything")
fn b(u: str) to str { u }

@mcp.resource("skill:{+x}", "Reserved, without //")
fn c(x: str) to str { x }

@mcp.resource("Skill://{id}", "Reserved, in another case")
fn d(id: str) to str { id }

@mcp.resource("/notes/{id}", "No scheme")
fn e(id: str) to str { id }

@mcp.resource("SKILL:plain", "A plain URI in the reserved scheme")
fn f() to str { "f" }

@mcp.resource("notes://{id}", "Kept")
fn note(id: str) to str { "note " + id }

@mcp.resource("skills://{+p}", "Kept: another scheme")
fn g(p: str) to str { p }
`,
	})
	s := load(t, &Loader{Root: root})
	var uris []string
	for _, r := range s.Resources {
		uris = append(uris, r.URI)
	}
	if got := strings.Join(uris, " "); got != "notes://{id} skills://{+p}" {
		t.Errorf("resources = %s", got)
	}
	if len(s.Result.Errors) != 1 || s.Result.Errors[0].Path != "tools/r.vox" {
		t.Fatalf("errors = %+v", s.Result.Errors)
	}
	noScheme := "does not begin with a literal scheme, so it could match URIs of the schemes the server serves itself: " +
		"begin it with scheme: before any {variable}, the scheme a letter then letters, digits, '+', '-' or '.', such as notes://{id}"
	reserved := "uses the reserved scheme skill: (the server serves installed skills under it): choose another scheme"
	want := []string{
		`1:1: resource URI "skill{+rest}" ` + noScheme,
		`4:1: resource URI "{+u}" ` + noScheme,
		`7:1: resource URI "skill:{+x}" ` + reserved,
		`10:1: resource URI "Skill://{id}" ` + reserved,
		`13:1: resource URI "/notes/{id}" ` + noScheme,
		`16:1: resource URI "SKILL:plain" ` + reserved,
	}
	if got := s.Result.Errors[0].Message; got != strings.Join(want, "; ") {
		t.Errorf("message:\n%s\nwant:\n%s", got, strings.Join(want, "; "))
	}
	if _, _, ok := s.MatchResource("notes://7"); !ok {
		t.Error("notes://7 does not match the template kept")
	}
	for _, uri := range []string{"skill://demo/SKILL.md", "skill://x", "skill:x"} {
		if r, _, ok := s.MatchResource(uri); ok {
			t.Errorf("%s matches %s", uri, r.URI)
		}
	}
}

// A surface that did not come through the load rule (a snapshot, a cache
// of an older build) is routed by the scheme all the same: no URI in a
// reserved scheme reaches its templates or plain resources.
func TestReservedURIsNeverReachTheWorkspace(t *testing.T) {
	root := workspaceTree(t, cfgExamples, map[string]string{
		"tools/r.vox": "@mcp.resource(\"notes://{+rest}\", \"N\")\nfn n(rest: str) to str { rest }\n",
	})
	snap := load(t, &Loader{Root: root}).Snapshot("m")
	snap.Resources = append(snap.Resources,
		SnapshotResource{URI: "{+u}", Func: "n", Variables: []string{"u"}, Path: "tools/r.vox", Line: 1},
		SnapshotResource{URI: "skill://x/SKILL.md", Func: "n", Path: "tools/r.vox", Line: 1})
	s := snap.Surface(root, nil)
	if r, _, ok := s.MatchResource("other://x"); !ok || r.URI != "{+u}" {
		t.Fatalf("the catch-all of the snapshot does not match other://x: %v", r)
	}
	for _, uri := range []string{"skill://x", "SKILL://x/SKILL.md", "Skill:y"} {
		if r, _, ok := s.MatchResource(uri); ok {
			t.Errorf("%s matches %s", uri, r.URI)
		}
	}
	if _, ok := s.Resource("skill://x/SKILL.md"); ok {
		t.Error("a plain skill:// resource of the snapshot is served")
	}
	for uri, want := range map[string]bool{"skill://a": true, "SKILL://a": true, "skill:a": true, "skills://a": false, "notes://skill://a": false, "{+u}": false, "": false} {
		if got := ReservedURI(uri); got != want {
			t.Errorf("ReservedURI(%q) = %v, want %v", uri, got, want)
		}
	}
}

// Under WithoutRepositoryCode no function of the repository runs, by any
// of the calls that run one; without it each runs.
func TestWithoutRepositoryCode(t *testing.T) {
	root := workspaceTree(t, cfgExamples, map[string]string{
		"tools/r.vox": `@tool "T"
fn t() to str { "ran" }

@mcp.resource("notes://{id}", "N")
@mcp.complete("id", ids)
fn note(id: str) to str { "ran " + id }

fn ids() to list[str] { ["ran"] }

@mcp.prompt("P")
@mcp.complete("q", ids)
fn ask(q: str) to str { "ran " + q }
`,
	})
	s := load(t, &Loader{Root: root})
	if len(s.Result.Errors) != 0 {
		t.Fatalf("errors %+v", s.Result.Errors)
	}
	tool, _ := s.Tool("t")
	r, vars, _ := s.MatchResource("notes://1")
	p, _ := s.Prompt("ask")
	calls := map[string]func(ctx context.Context) (string, error){
		"tool": func(ctx context.Context) (string, error) {
			res, err := s.CallTool(ctx, tool, nil, nil)
			return string(res.JSON), err
		},
		"resource": func(ctx context.Context) (string, error) { return s.ReadResource(ctx, r, vars, nil) },
		"prompt": func(ctx context.Context) (string, error) {
			msgs, err := s.GetPrompt(ctx, p, map[string]string{"q": "x"}, nil)
			if len(msgs) > 0 {
				return msgs[0].Block.Text, err
			}
			return "", err
		},
		"complete resource": func(ctx context.Context) (string, error) {
			v, _, err := s.CompleteResource(ctx, r, "id", nil)
			return strings.Join(v, ","), err
		},
		"complete prompt": func(ctx context.Context) (string, error) {
			v, _, err := s.CompletePrompt(ctx, p, "q", nil)
			return strings.Join(v, ","), err
		},
	}
	withheld := WithoutRepositoryCode(context.Background(), "not for you")
	for name, call := range calls {
		if out, err := call(context.Background()); err != nil || !strings.Contains(out, "ran") {
			t.Errorf("%s: %q, %v: want it run", name, out, err)
		}
		if out, err := call(withheld); err == nil || err.Error() != "not for you" || out != "" {
			t.Errorf("%s under WithoutRepositoryCode: %q, %v", name, out, err)
		}
	}
}
