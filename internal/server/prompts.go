package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/internal/vox/content"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// promptEntry is one prompt of the MCP plane and its handler.
type promptEntry struct {
	prompt  mcp.Prompt
	source  string // registry.SourceWorkspace or SourceSkill
	handler mcpserver.PromptHandlerFunc
}

// promptSource supplies the current prompts of one origin; implementations
// return a fresh slice on every call.
type promptSource interface {
	promptEntries() []promptEntry
}

// syncPrompts merges every prompt source — workspace prompts first, so
// that one shadows the skill prompt of the same name (reported in the
// log) — and updates mcp-go's registrations with only what changed; each
// step sends prompts/list_changed.
func (s *Server) syncPrompts() {
	s.promptMu.Lock()
	defer s.promptMu.Unlock()
	want := map[string]promptEntry{}
	for _, src := range s.promptSources {
		for _, e := range src.promptEntries() {
			if prev, taken := want[e.prompt.Name]; taken {
				s.log.Warn("a prompt is shadowed", "prompt", e.prompt.Name, "served", prev.source, "shadowed", e.source)
				continue
			}
			want[e.prompt.Name] = e
		}
	}
	removed, changed := registrationChanges(want, s.registeredPrompts, func(e, prev promptEntry) bool {
		return prev.source == e.source && reflect.DeepEqual(prev.prompt, e.prompt)
	})
	if len(removed) > 0 {
		s.mcp.DeletePrompts(removed...)
	}
	if len(changed) > 0 {
		add := make([]mcpserver.ServerPrompt, len(changed))
		for i, name := range changed {
			add[i] = mcpserver.ServerPrompt{Prompt: want[name].prompt, Handler: want[name].handler}
		}
		s.mcp.AddPrompts(add...)
	}
	s.registeredPrompts = want
	sources := make(map[string]string, len(want))
	for name, e := range want {
		sources[name] = e.source
	}
	s.promptOrigins.Store(&sources)
}

// promptSourceOf is where the served prompt of that name comes from ("" when
// none is served).
func (s *Server) promptSourceOf(name string) string {
	if m := s.promptOrigins.Load(); m != nil {
		return (*m)[name]
	}
	return ""
}

// Limits of the files a skill prompt embeds (docs/skills.md §9): small
// files travel with the instructions, the others stay skill:// resources
// the client reads when it needs them.
const (
	promptFileMax  = 16 << 10
	promptFilesMax = 64 << 10
)

// skillTaskArgument is the one, optional, argument of a skill prompt.
var skillTaskArgument = mcp.PromptArgument{
	Name:        "task",
	Description: "What to do with the skill; it follows the instructions.",
}

// promptEntries makes every installed skill a prompt (docs/skills.md §9):
// its id is the name, its description the prompt's.
func (p *skillPlane) promptEntries() []promptEntry {
	snap := p.reg.Snapshot()
	out := make([]promptEntry, 0, snap.Len())
	for _, in := range snap.Skills() {
		out = append(out, promptEntry{
			prompt: mcp.Prompt{
				Name:        in.ID,
				Title:       in.Name,
				Description: in.Description,
				Arguments:   []mcp.PromptArgument{skillTaskArgument},
				Meta: &mcp.Meta{AdditionalFields: map[string]any{
					"vox_source":   registry.SourceSkill,
					"vox_skill_id": in.ID,
				}},
			},
			source:  registry.SourceSkill,
			handler: p.promptHandler(in.ID),
		})
	}
	return out
}

// promptHandler answers prompts/get of a skill from the current snapshot:
// one user message with the instructions (and the task, when given), then
// one per small file of the skill as an embedded resource, in path order,
// while they fit promptFilesMax together.
func (p *skillPlane) promptHandler(id string) mcpserver.PromptHandlerFunc {
	return func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		snap := p.reg.Snapshot()
		in, ok := snap.Get(id)
		if !ok || in.ID != id {
			return nil, fmt.Errorf("skill %s is no longer installed: prompts/list shows the current prompts: %w", id, mcpserver.ErrPromptNotFound)
		}
		text := in.Body
		if task := req.Params.Arguments["task"]; task != "" {
			text = strings.TrimRight(text, "\n") + "\n\nTask: " + task
		}
		msgs := []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}
		budget := int64(promptFilesMax)
		for _, f := range in.Files {
			if f.Path == "SKILL.md" || f.Size > promptFileMax || f.Size > budget {
				continue
			}
			c, err := snap.ReadResource(skills.SkillURI(in.ID, f.Path))
			if err != nil {
				continue // not served (see skills.Resources): the client cannot read it either
			}
			budget -= f.Size
			var contents mcp.ResourceContents = mcp.TextResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}
			if c.IsBlob {
				contents = mcp.BlobResourceContents{URI: c.URI, MIMEType: c.MIMEType, Blob: base64.StdEncoding.EncodeToString(c.Blob)}
			}
			msgs = append(msgs, mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(contents)))
		}
		return &mcp.GetPromptResult{Description: in.Description, Messages: msgs}, nil
	}
}

// promptEntries projects the surface's prompts (docs/vox-language.md,
// Prompts): each argument a string, required unless its parameter is
// Option[str] or has a default.
func (w *workspaceSource) promptEntries() []promptEntry {
	surface := w.surface.Load()
	out := make([]promptEntry, 0, len(surface.Prompts))
	for _, p := range surface.Prompts {
		args := make([]mcp.PromptArgument, len(p.Arguments))
		for i, a := range p.Arguments {
			args[i] = mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required}
		}
		out = append(out, promptEntry{
			prompt: mcp.Prompt{
				Name:        p.Name,
				Description: p.Description,
				Arguments:   args,
				Meta: &mcp.Meta{AdditionalFields: map[string]any{
					"vox_source":      registry.SourceWorkspace,
					"vox_source_path": p.Path,
					"vox_source_line": p.Line,
				}},
			},
			source:  registry.SourceWorkspace,
			handler: w.promptHandler(p.Name),
		})
	}
	return out
}

// promptHandler answers prompts/get of a workspace prompt: its function
// runs with the string arguments, in the surface current when the request
// starts, through the interpreter path and limits of a tool call; the str
// it returns is one user message, a list[Message] its messages. A failure
// is mcp-go's -32603 with the error text, as for a resource read.
func (w *workspaceSource) promptHandler(name string) mcpserver.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		surface := w.surface.Load()
		p, ok := surface.Prompt(name)
		if !ok {
			return nil, fmt.Errorf("workspace prompt %s is gone since the last refresh: prompts/list shows the current prompts: %w", name, mcpserver.ErrPromptNotFound)
		}
		ctx = toolcall.WithClient(ctx, w.s.clientOf(ctx, req.Params.Meta))
		// A prompt may ask its client as a tool does (workspace_call.go).
		args, _ := json.Marshal(req.Params.Arguments) // a map of strings always encodes
		ctx, err := w.withRounds(ctx, "prompt "+name, args, req.Params.MultiRoundTripParams)
		if err != nil {
			return nil, err
		}
		msgs, err := surface.GetPromptAsking(ctx, p, req.Params.Arguments, toolcall.ClientLogger(ctx, w.s.log.With("prompt", name), name), toolcall.Asker{})
		if err != nil {
			var input *toolcall.InputRequired
			if errors.As(err, &input) {
				if b, berr := input.Builder(); berr == nil {
					return b.PromptResult(), nil
				}
			}
			return nil, errors.New(workspace.ErrorText(err))
		}
		out := make([]mcp.PromptMessage, len(msgs))
		for i, m := range msgs {
			out[i] = mcp.NewPromptMessage(mcp.Role(m.Role), contentBlocks([]content.Block{m.Block})[0])
		}
		return &mcp.GetPromptResult{Description: p.Description, Messages: out}, nil
	}
}
