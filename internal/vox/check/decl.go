package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/uritemplate"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// The checks of declarations as the server reads them: decorators that
// are a typo of one vox-mcp serves, uses clauses naming an effect it does
// not grant, prompts, resource templates and completions.

// decorators reports unknown decorators that are a typo of one vox-mcp
// serves (@tol for @tool): such a function would silently not be a tool.
func (c *checker) decorators() {
	check := func(d syntax.Decorator) {
		if slices.Contains(knownDecorators, d.Name) || slices.Contains(ignoredDecorators, d.Name) {
			return
		}
		best := suggest(d.Name, knownDecorators, 2)
		if best == "" {
			return
		}
		c.add(diag.Diagnostic{Line: int(d.Pos.Line), Col: int(d.Pos.Col), Severity: diag.Error, Code: "vox/decorator/unknown",
			Message: fmt.Sprintf("unknown decorator %s", d.Name), Help: []string{"did you mean " + best + "?"},
			EndCol: int(d.End.Col),
			Fix:    &diag.Fix{Line: int(d.Pos.Line), Col: int(d.Pos.Col), EndLine: int(d.End.Line), EndCol: int(d.End.Col), NewText: best}})
	}
	for _, d := range c.mod.File.Decls {
		switch d := d.(type) {
		case *syntax.FnDecl:
			for _, dec := range d.Decorators {
				if dec.Name == "@endpoint" {
					c.endpointKind(dec)
				}
				n := len(c.diags)
				check(dec)
				if len(c.diags) > n {
					if i, ok := c.mod.FuncIndex[d.Name]; ok {
						c.markErr(i, n)
					}
				}
			}
		case *syntax.SkippedDecl:
			if strings.HasPrefix(d.Word, "@") {
				check(syntax.Decorator{Pos: d.Pos, Name: d.Word, End: syntax.Pos{Line: d.Pos.Line, Col: d.Pos.Col + int32(len(d.Word))}})
			}
		}
	}
}

// endpointKinds are the kinds of @endpoint(kind: ...) the reference
// accepts (spec 22 §4.2).
var endpointKinds = []string{"query", "mutation", "server"}

// endpointKind reports an @endpoint whose kind the reference rejects. An
// endpoint is read as a plain function here whatever its kind, so it is a
// warning, an error only under Strict (docs/vox-language.md, The checker).
func (c *checker) endpointKind(d syntax.Decorator) {
	report := c.warnf
	if c.opts.Strict {
		report = c.errorf
	}
	help := []string{"the reference accepts @endpoint(kind: query), @endpoint(kind: mutation) and @endpoint(kind: server)"}
	switch {
	case d.Kind == "":
		report(d.KindPos, "vox/decorator/endpoint-kind", help, "@endpoint needs kind: query, mutation or server")
	case !slices.Contains(endpointKinds, d.Kind):
		report(d.KindPos, "vox/decorator/endpoint-kind", help, "unknown endpoint kind %s: expected query, mutation or server", d.Kind)
	}
}

// knownDecorators are the decorators vox-mcp acts on; a near miss of one
// is an error with a suggestion.
var knownDecorators = []string{"@tool", "@resource", "@mcp.tool", "@mcp.resource", "@mcp.prompt", "@mcp.complete", "@uses", "@input_schema", "@long_running"}

// ignoredDecorators are decorators of the wider language that vox-mcp
// accepts and ignores (docs/vox-language.md, What is skipped).
var ignoredDecorators = []string{"@test", "@scheduled", "@ai", "@deprecated", "@pure", "@inline", "@cached", "@cache", "@table", "@index",
	"@endpoint", "@query", "@mutation", "@server", "@form", "@component", "@page", "@layout", "@route", "@webhook", "@cors", "@pii",
	"@rate_limit", "@layer", "@embed", "@workflow", "@activity", "@agent", "@actor", "@action", "@get", "@post", "@put", "@delete",
	"@island", "@loading", "@state", "@derived", "@effect", "@memo", "@trace", "@log", "@auth", "@require", "@retry", "@timeout",
	"@export", "@extern", "@async", "@sync", "@v0", "@fixture", "@mock", "@bench", "@doc", "@example", "@schema"}

// grantedEffects are the effects of a uses clause that vox-mcp serves: fs
// (read), env (allowlisted), clock (time), mutate and nothing
// (docs/vox-language.md, Capabilities).
var grantedEffects = []string{"fs", "env", "clock", "mutate", "nothing"}

// uses reports a tool or resource whose uses clause names an effect the
// server does not grant: a call that needs it fails.
func (c *checker) uses(d *syntax.FnDecl) {
	if d.Kind == syntax.PlainFn {
		return
	}
	for _, e := range d.Effects {
		if slices.Contains(grantedEffects, e.Name) || !slices.Contains(syntax.Effects, e.Name) {
			continue
		}
		c.warnf(e.Pos, "vox/uses/ungranted", []string{"vox-mcp grants " + strings.Join(grantedEffects, ", ") + "; calls that need " + e.Name + " fail at run time"},
			"%s %s uses %s, which this server does not grant", kindWord(d.Kind), d.Name, e.Name)
	}
}

func kindWord(k syntax.FnKind) string {
	switch k {
	case syntax.ResourceFn:
		return "resource"
	case syntax.PromptFn:
		return "prompt"
	}
	return "tool"
}

// prompt checks the signature of a workspace prompt (docs/vox-language.md,
// Prompts): MCP prompt arguments are strings, so every parameter is str
// (a required argument) or Option[str] (an optional one), and the result
// is str, the text of one user message, or list[Message].
func (c *checker) prompt(d *syntax.FnDecl, sig *funcSig) {
	for j, p := range d.Params {
		t := sig.params[j]
		if p.Type == nil || t.Kind == KStr || t.Kind == KOption && t.arg(0).Kind == KStr {
			continue
		}
		c.errorf(p.NamePos, "vox/decl/prompt-param", []string{"MCP prompt arguments are strings: declare " + p.Name + ": str (required) or " + p.Name + ": Option[str] (optional), and convert inside the prompt"},
			"prompt %s: parameter %s is %s, but a prompt parameter must be str or Option[str]", d.Name, p.Name, t)
	}
	if d.Result == nil || sig.ret.Kind != KStr && !IsMessageList(d.Result) {
		at := d.NamePos
		if d.Result != nil {
			at = d.Result.Pos
		}
		c.errorf(at, "vox/decl/prompt-result", []string{"declare " + d.Name + "(...) to str (the text becomes one user message) or to list[Message] (a list of {role: \"user\" or \"assistant\", content: str or content.*})"},
			"prompt %s must be declared to return str or list[Message]", d.Name)
	}
}

// IsMessageList reports whether t is list[Message], the result of a
// prompt that returns its messages (docs/vox-language.md, Prompts).
// Message names the shape {role, content}, checked when the prompt runs.
func IsMessageList(t *syntax.Type) bool {
	return t != nil && t.IsNamed("list") && len(t.Args) == 1 && t.Args[0].IsNamed("Message") && len(t.Args[0].Args) == 0
}

// resourceTemplate checks a workspace resource whose URI is a template
// (docs/vox-language.md, Resources with URI parameters): the template is
// well formed ({name} and {+name} only: vox/decl/resource-template), and
// its variables and the function's parameters are the same names, each a
// str (vox/decl/resource-var): a read passes every variable, decoded from
// the URI, as a string.
func (c *checker) resourceTemplate(d *syntax.FnDecl, sig *funcSig) {
	// A variable's column is the URI string's plus its offset: URIs are
	// written without escapes.
	at := func(offset int) syntax.Pos {
		p := d.URIPos
		p.Col += int32(1 + offset)
		return p
	}
	t, err := uritemplate.Parse(d.URI)
	if err != nil {
		e := err.(*uritemplate.Error)
		c.errorf(at(e.Offset), "vox/decl/resource-template", []string{e.Hint},
			"resource %s: %s", d.URI, e.Message)
		return
	}
	for _, v := range t.Variables {
		j := slices.IndexFunc(d.Params, func(p *syntax.Param) bool { return p.Name == v.Name })
		if j < 0 {
			c.errorf(at(v.Offset), "vox/decl/resource-var", []string{fmt.Sprintf("add the parameter %s: str to %s, which receives the variable's decoded value", v.Name, d.Name)},
				"resource %s: the URI variable %s must be a parameter of %s", d.URI, v.Name, d.Name)
		}
	}
	for j, p := range d.Params {
		if !slices.ContainsFunc(t.Variables, func(v uritemplate.Variable) bool { return v.Name == p.Name }) {
			c.errorf(p.NamePos, "vox/decl/resource-var", []string{fmt.Sprintf("write {%s} in the URI, or remove the parameter: a read passes only the URI's variables", p.Name)},
				"resource %s: parameter %s must be a variable of the URI template", d.URI, p.Name)
			continue
		}
		if t := sig.params[j]; p.Type != nil && t.Kind != KStr {
			c.errorf(p.NamePos, "vox/decl/resource-var", []string{"URI variables are strings: declare " + p.Name + ": str and convert inside the function"},
				"resource %s: parameter %s is %s, but a URI variable must be str", d.URI, p.Name, t)
		}
	}
}

// completions checks the @mcp.complete("param", fn) decorators of a
// prompt or a resource template (docs/vox-language.md, Completion): param
// is one of its parameters, completed once, and fn a plain function of
// the file declared fn() to list[str], whose list the server ranks.
func (c *checker) completions(d *syntax.FnDecl) {
	for j, comp := range d.Completions {
		if !slices.ContainsFunc(d.Params, func(p *syntax.Param) bool { return p.Name == comp.Param }) {
			what := "argument"
			if d.Kind == syntax.ResourceFn {
				what = "URI variable"
			}
			c.errorf(comp.ParamPos, "vox/decl/complete", []string{fmt.Sprintf("name one of the parameters of %s: each is an %s the client may ask to complete", d.Name, what)},
				"@mcp.complete: %s has no parameter %s", d.Name, comp.Param)
			continue
		}
		if slices.ContainsFunc(d.Completions[:j], func(p syntax.Completion) bool { return p.Param == comp.Param }) {
			c.errorf(comp.ParamPos, "vox/decl/complete", []string{"keep one @mcp.complete per parameter"},
				"@mcp.complete: parameter %s of %s is completed twice", comp.Param, d.Name)
			continue
		}
		i, ok := c.mod.FuncIndex[comp.Func]
		hint := []string{fmt.Sprintf("declare fn %s() to list[str] in this file: it returns the candidates, which the server filters by what the client typed and ranks", comp.Func)}
		if !ok {
			c.errorf(comp.FuncPos, "vox/decl/complete", hint, "@mcp.complete: no function %s in this file", comp.Func)
			continue
		}
		sig := c.funcs[i]
		required := slices.ContainsFunc(sig.decl.Params, func(p *syntax.Param) bool { return p.Default == nil })
		if sig.decl.Kind != syntax.PlainFn || required || sig.decl.Result == nil || sig.ret.Kind != KList || sig.ret.arg(0).Kind != KStr {
			c.errorf(comp.FuncPos, "vox/decl/complete", hint, "@mcp.complete: %s must be a plain function declared fn %s() to list[str]", comp.Func, comp.Func)
		}
	}
}
