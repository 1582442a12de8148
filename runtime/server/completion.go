package server

import (
	"context"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/registry"
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
// prompt's task is free text and a workspace prompt's arguments are its
// function's strings, so neither has values to offer; an unknown prompt
// has none either.
func (c completer) CompletePromptArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: []string{}}, nil
}

// CompleteResourceArgument completes a variable of the skill file template:
// id from the installed skills' ids, path from the files of the skill
// that context's id names.
func (c completer) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if uri != SkillFileTemplate || c.s.skills == nil {
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
