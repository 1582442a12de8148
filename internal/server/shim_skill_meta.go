package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/vox-lang/vox-mcp/internal/session"
)

// A request of protocol 2026-07-28 has no session to hold an active skill
// (docs/federation.md §8, "The active skill without a session"), so it
// names one itself: params._meta[MetaActiveSkill] holds a skill's id or
// name, and the skill's allowlist applies to that request as if the skill
// were the session's active skill. The client keeps the skill, as it
// keeps everything else of its state under that protocol; the allowlist
// is the client's own restriction either way (vox_skill_use {id: ""}
// lifts it in a session), so naming it per request gives nothing away.

// MetaActiveSkill is the _meta key naming the active skill of a request
// without a session.
const MetaActiveSkill = "io.github.vox-lang/activeSkill"

// requestSkillKey holds the *requestSkill of a sessionless HTTP request.
type requestSkillKey struct{}

// requestSkill is the active skill a request named: none, a skill, or
// an error when it named one that is not installed (the call is then
// refused, never let through unrestricted).
type requestSkill struct {
	skill session.ActiveSkill
	named bool
	err   error
}

// withRequestSkill reads the active skill a sessionless request names.
func (s *Server) withRequestSkill(ctx context.Context, body []byte) context.Context {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if unmarshal(body, &m) != nil {
		return ctx
	}
	raw, ok := m.Params.Meta[MetaActiveSkill]
	if !ok {
		return ctx
	}
	var name any
	if unmarshal(raw, &name) != nil {
		return ctx
	}
	return s.withRequestSkillMeta(ctx, map[string]any{MetaActiveSkill: name})
}

// withRequestSkillMeta reads the active skill a sessionless request names
// in its decoded _meta.
func (s *Server) withRequestSkillMeta(ctx context.Context, meta map[string]any) context.Context {
	v, ok := meta[MetaActiveSkill]
	if !ok {
		return ctx
	}
	rs := &requestSkill{}
	name, isString := v.(string)
	if v == nil {
		name, isString = "", true // null reads as "", as into a string
	}
	switch {
	case !isString:
		rs.err = fmt.Errorf("_meta[%q] must be a skill's id or name as a string", MetaActiveSkill)
	case name == "":
		// no skill, as vox_skill_use {id: ""} clears one
	case s.skills == nil:
		rs.err = fmt.Errorf("_meta[%q] names skill %q, but this server serves no skills", MetaActiveSkill, name)
	default:
		in, err := s.skills.reg.Snapshot().Lookup(name)
		if err != nil {
			rs.err = fmt.Errorf("_meta[%q]: %v", MetaActiveSkill, err)
		} else {
			rs.skill, rs.named = session.ActiveSkill{ID: in.ID, Name: in.Name, Tools: in.Tools}, true
		}
	}
	return context.WithValue(ctx, requestSkillKey{}, rs)
}

// requestSkillFrom is the active skill the request behind ctx named, if
// it is a sessionless request that named one.
func requestSkillFrom(ctx context.Context) (*requestSkill, bool) {
	rs, ok := ctx.Value(requestSkillKey{}).(*requestSkill)
	return rs, ok
}
