package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/content"
)

// Env is the interpreter environment of calls on this surface: fs.* rooted
// at the workspace, env.get and fs.write limited to the surface's Powers
// (what the person granted: consent.go), the server's maxima lowered by
// the config's limits, print to log.
func (s *Surface) Env(log *slog.Logger) *vox.Env {
	env := s.env(log)
	return &env
}

// LimitHint ends the limit errors of workspace calls: the repository may
// lower a limit in its scan config, and only whoever runs the server may
// raise the maximum (docs/vox-language.md, Limits).
const LimitHint = "raise limits.<key> in " + ConfigPath + ", up to the server's maximum, which vox-mcp --limit-<flag> or VOX_MCP_LIMIT_<KEY> raises"

// env is Env as a value, so that a call can keep it on its stack. The
// config may only lower the server's maxima (vox.Lower): a value of 0,
// which once meant unlimited, or above the maximum keeps the maximum.
func (s *Surface) env(log *slog.Logger) vox.Env {
	lim := vox.Lower(vox.CurrentMaxima().Limits, s.Config.Limits.Request())
	return vox.Env{Root: s.Root, Powers: s.Powers, Limits: lim, Log: log, LimitHint: LimitHint}
}

// Request returns the limits a config sets, zero where it sets none, for
// vox.Lower: the config may only lower the maxima of whoever runs the
// interpreter (the server, or vox run).
func (c Limits) Request() vox.Limits {
	var req vox.Limits
	if c.Steps != nil {
		req.Steps = *c.Steps
	}
	if c.MaxDepth != nil {
		req.MaxDepth = int(min(*c.MaxDepth, 1<<30))
	}
	if c.TimeoutMS != nil && *c.TimeoutMS < int64(1<<62/time.Millisecond) {
		req.Timeout = time.Duration(*c.TimeoutMS) * time.Millisecond
	}
	if c.MaxOutputBytes != nil {
		req.MaxOutputBytes = *c.MaxOutputBytes
	}
	if c.MaxValueBytes != nil {
		req.MaxValueBytes = *c.MaxValueBytes
	}
	if c.WaitMS != nil && *c.WaitMS < int64(1<<62/time.Millisecond) {
		req.Wait = time.Duration(*c.WaitMS) * time.Millisecond
	}
	return req
}

// noRepositoryCodeKey marks a context under which no function of the
// repository runs (WithoutRepositoryCode).
type noRepositoryCodeKey struct{}

// WithoutRepositoryCode returns ctx under which none of this package's
// calls runs a function of the repository — CallTool, ReadResource,
// GetPrompt and the completions fail with why — whichever way the request
// reached them. The server gives it to every request of the HTTP read
// role, which may never run the repository's code (docs/federation.md §8,
// Tokens): the checks in front of each method say why early, this one
// holds even where a route was missed.
func WithoutRepositoryCode(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, noRepositoryCodeKey{}, why)
}

// repositoryCodeWithheld is the error of a call under WithoutRepositoryCode.
func repositoryCodeWithheld(ctx context.Context) error {
	if why, ok := ctx.Value(noRepositoryCodeKey{}).(string); ok {
		return errors.New(why)
	}
	return nil
}

// CallTool runs tool t with the JSON object args (nil means {}) in the
// interpreter, with ctx (cancellation stops it) and the surface's
// environment. The module is the one current when the call starts (its
// file is recompiled first when it changed on disk); a refresh during the
// call does not affect it. Errors read as docs/tool-results.md §3
// writes them (ErrorText).
func (s *Surface) CallTool(ctx context.Context, t *Tool, args json.RawMessage, log *slog.Logger) (vox.Result, error) {
	return s.CallToolReporting(ctx, t, args, log, nil, nil)
}

// CallToolReporting is CallTool with progress receiving what the tool
// reports with progress(done, total, message) (nil drops it) and client
// answering its elicit() and sample() (nil fails them).
func (s *Surface) CallToolReporting(ctx context.Context, t *Tool, args json.RawMessage, log *slog.Logger, progress func(done, total float64, message string), client vox.Client) (vox.Result, error) {
	if err := repositoryCodeWithheld(ctx); err != nil {
		return vox.Result{}, err
	}
	m, err := s.ToolModule(t)
	if err != nil {
		return vox.Result{}, err
	}
	env := s.env(log)
	env.Progress = progress
	env.Client = client
	return m.Call(ctx, t.Name, args, &env)
}

// ReadResource calls the function of resource r and returns its text;
// vars are the decoded variables of a template resource's URI
// (MatchResource), nil for a plain one.
func (s *Surface) ReadResource(ctx context.Context, r *Resource, vars map[string]string, log *slog.Logger) (string, error) {
	return s.ReadResourceNoting(ctx, r, vars, log, nil)
}

// ReadResourceNoting is ReadResource that gives onReads the files the
// function read (vox.Env.OnReads; nil: nobody is told).
func (s *Surface) ReadResourceNoting(ctx context.Context, r *Resource, vars map[string]string, log *slog.Logger, onReads func([]string)) (string, error) {
	if err := repositoryCodeWithheld(ctx); err != nil {
		return "", err
	}
	m, _, err := s.ResourceModule(r)
	if err != nil {
		return "", err
	}
	env := s.env(log)
	env.OnReads = onReads
	return m.ReadTemplate(ctx, r.URI, vars, &env)
}

// GetPrompt runs the function of prompt p with its string arguments (a
// missing optional one is None) through the same interpreter path and
// limits as a tool call, and returns its messages.
func (s *Surface) GetPrompt(ctx context.Context, p *Prompt, args map[string]string, log *slog.Logger) ([]content.Message, error) {
	return s.GetPromptAsking(ctx, p, args, log, nil)
}

// GetPromptAsking is GetPrompt with client answering the prompt's
// elicit() and sample() (nil fails them).
func (s *Surface) GetPromptAsking(ctx context.Context, p *Prompt, args map[string]string, log *slog.Logger, client vox.Client) ([]content.Message, error) {
	if err := repositoryCodeWithheld(ctx); err != nil {
		return nil, err
	}
	m, err := s.PromptModule(p)
	if err != nil {
		return nil, err
	}
	env := s.env(log)
	env.Client = client
	return m.GetPrompt(ctx, p.Name, args, &env)
}

// CompletePrompt runs the function that completes argument param of
// prompt p (docs/vox-language.md, Completion) through the interpreter path
// and limits of a tool call and returns its candidates; ok is false when
// no function completes param.
func (s *Surface) CompletePrompt(ctx context.Context, p *Prompt, param string, log *slog.Logger) (values []string, ok bool, err error) {
	fn, ok := completer(p.Completions, param)
	if !ok {
		return nil, false, nil
	}
	m, err := s.PromptModule(p)
	if err != nil {
		return nil, true, err
	}
	values, err = s.complete(ctx, m, fn, log)
	return values, true, err
}

// CompleteResource is CompletePrompt for a variable of resource r's URI
// template.
func (s *Surface) CompleteResource(ctx context.Context, r *Resource, param string, log *slog.Logger) (values []string, ok bool, err error) {
	fn, ok := completer(r.Completions, param)
	if !ok {
		return nil, false, nil
	}
	m, _, err := s.ResourceModule(r)
	if err != nil {
		return nil, true, err
	}
	values, err = s.complete(ctx, m, fn, log)
	return values, true, err
}

func completer(cs []Completion, param string) (string, bool) {
	for _, c := range cs {
		if c.Param == param {
			return c.Func, true
		}
	}
	return "", false
}

func (s *Surface) complete(ctx context.Context, m *vox.Module, fn string, log *slog.Logger) ([]string, error) {
	if err := repositoryCodeWithheld(ctx); err != nil {
		return nil, err
	}
	if d, broken := m.Broken(fn); broken {
		return nil, fmt.Errorf("%s: completion function %s has an error (%d:%d: %s [%s]); fix it, then %s", m.Path(), fn, d.Line, d.Col, d.Message, d.Code, RefreshHint)
	}
	env := s.env(log)
	return m.Complete(ctx, fn, &env)
}

// ErrorText is the text of a failed call for its error result: the
// message of an argument error or an Err result as docs/vox-language.md
// writes it, a runtime error prefixed with its source position, and a
// limit prefixed with where it stopped the call and followed by the calls
// in progress (docs/vox-language.md, Limits).
func ErrorText(err error) string {
	var ve *vox.Error
	if errors.As(err, &ve) {
		switch ve.Kind {
		case vox.RuntimeError:
			return ve.Positioned()
		case vox.LimitError:
			return ve.Positioned() + ve.Traceback()
		}
	}
	return err.Error()
}
