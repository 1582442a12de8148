package server

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// SkillFileTemplate is the resource template of the skills' files
// (docs/skills.md §5): it names every file a skill's folder registered at
// hydration, and only those resolve.
const SkillFileTemplate = "skill://{id}/{+path}"

// maxCompletions is the most values completion/complete returns (the
// protocol's limit).
const maxCompletions = 100

// listSkillTemplate is the AfterListResourceTemplates hook: it adds the
// skill file template. The template is advertised (and completed) but not
// registered with mcp-go, whose template handlers would catch every
// skill:// URI: reads resolve only the files registered as resources, and
// any other URI stays resource-not-found (-32002).
func (s *Server) listSkillTemplate(_ context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, result *mcp.ListResourceTemplatesResult) {
	if result == nil || s.skills == nil {
		return
	}
	t := mcp.NewResourceTemplate(SkillFileTemplate, "skill-file",
		mcp.WithTemplateDescription("A file of an installed skill: id is the skill's id, path the file's path in its folder (SKILL.md, references/..., scripts/...)."))
	t.Meta = &mcp.Meta{AdditionalFields: map[string]any{"vox_source": registry.SourceSkill}}
	result.ResourceTemplates = append(result.ResourceTemplates, t)
	slices.SortFunc(result.ResourceTemplates, func(a, b mcp.ResourceTemplate) int { return strings.Compare(a.Name, b.Name) })
}

// completer answers completion/complete (docs/skills.md §5).
type completer struct{ s *Server }

// CompletePromptArgument completes the argument of a prompt. A skill
// prompt's task is free text, with no values to offer; a workspace
// prompt's argument has the values of its @mcp.complete function
// (docs/vox-language.md, Completion), when it has one.
func (c completer) CompletePromptArgument(ctx context.Context, name string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if c.s.promptSourceOf(name) != registry.SourceWorkspace {
		return &mcp.Completion{Values: []string{}}, nil
	}
	surface := c.s.workspace.surface.Load()
	p, ok := surface.Prompt(name)
	if !ok {
		return &mcp.Completion{Values: []string{}}, nil
	}
	values, _, err := surface.CompletePrompt(ctx, p, arg.Name, c.s.log.With("prompt", name, "complete", arg.Name))
	if err != nil {
		return nil, errors.New(workspace.ErrorText(err))
	}
	return rankCompletions(values, arg.Value), nil
}

// CompleteResourceArgument completes a variable of a resource template:
// for the skill file template, id from the installed skills' ids and path
// from the files of the skill that context's id names; for a workspace
// template, the values of the variable's @mcp.complete function. A
// template in a reserved scheme is routed by its scheme, as a read is:
// it is the server's, never the workspace's, and only the skill file
// template has values.
func (c completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if !workspace.ReservedURI(uri) {
		return c.completeWorkspaceTemplate(ctx, uri, arg)
	}
	if c.s.skills == nil || uri != SkillFileTemplate {
		return &mcp.Completion{Values: []string{}}, nil
	}
	snap := c.s.skills.reg.Snapshot()
	var candidates []string
	switch arg.Name {
	case "id":
		for _, in := range snap.Skills() {
			candidates = append(candidates, in.ID)
		}
	case "path":
		if in, ok := snap.Get(cc.Arguments["id"]); ok {
			candidates = in.FilePaths()
		}
	}
	return rankCompletions(candidates, arg.Value), nil
}

// completeWorkspaceTemplate runs the @mcp.complete function of variable
// arg of the workspace resource template uri through the call path and
// its limits; a template or variable without one has no values.
func (c completer) completeWorkspaceTemplate(ctx context.Context, uri string, arg mcp.CompleteArgument) (*mcp.Completion, error) {
	surface := c.s.workspace.surface.Load()
	r, ok := surface.Resource(uri)
	if !ok || !r.IsTemplate() {
		return &mcp.Completion{Values: []string{}}, nil
	}
	values, _, err := surface.CompleteResource(ctx, r, arg.Name, c.s.log.With("resource", uri, "complete", arg.Name))
	if err != nil {
		return nil, errors.New(workspace.ErrorText(err))
	}
	return rankCompletions(values, arg.Value), nil
}

// rankCompletions returns the candidates that contain value (ignoring
// case): those that start with it first, then the others, each group
// shortest first and then in byte order; at most maxCompletions of them,
// with the total and whether more exist.
func rankCompletions(candidates []string, value string) *mcp.Completion {
	v := strings.ToLower(value)
	var prefix, inner []string
	for _, c := range candidates {
		l := strings.ToLower(c)
		switch {
		case strings.HasPrefix(l, v):
			prefix = append(prefix, c)
		case strings.Contains(l, v):
			inner = append(inner, c)
		}
	}
	byLength := func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	}
	slices.SortFunc(prefix, byLength)
	slices.SortFunc(inner, byLength)
	all := append(prefix, inner...)
	out := &mcp.Completion{Values: all[:min(len(all), maxCompletions)], Total: len(all), HasMore: len(all) > maxCompletions}
	if out.Values == nil {
		out.Values = []string{}
	}
	return out
}
