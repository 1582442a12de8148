package server

import (
	"context"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/skills"
)

func skillServer(t *testing.T, opts Options) *Server {
	t.Helper()
	opts.Root = t.TempDir()
	opts.Skills = &skills.Config{Workspace: opts.Root, Home: t.TempDir(), Roots: []string{t.TempDir()}}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fakeSession is a transport session with a given id.
type fakeSession string

func (fakeSession) Initialize()                                         {}
func (fakeSession) Initialized() bool                                   { return true }
func (fakeSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (f fakeSession) SessionID() string                                 { return string(f) }

// TestActiveSkillsAreBounded: beyond maxActiveSessions sessions, the least
// recently used one forgets its active skill; the others keep theirs.
func TestActiveSkillsAreBounded(t *testing.T) {
	s := skillServer(t, Options{})
	ctxOf := func(i int) context.Context {
		return s.mcp.WithContext(context.Background(), fakeSession(fmt.Sprintf("session-%d", i)))
	}
	skill := &activeSkill{id: "release-notes", name: "release-notes", tools: []string{"vox_check"}}
	for i := range maxActiveSessions {
		if err := s.skills.setActive(ctxOf(i), skill); err != nil {
			t.Fatal(err)
		}
	}
	// Session 0 is used again, so session 1 is now the least recently used.
	if _, ok := s.skills.activeFor(ctxOf(0)); !ok {
		t.Fatal("session 0 lost its skill before the bound was reached")
	}
	if err := s.skills.setActive(ctxOf(maxActiveSessions), skill); err != nil {
		t.Fatal(err)
	}
	if len(s.skills.active) != maxActiveSessions {
		t.Fatalf("%d sessions remembered, want %d", len(s.skills.active), maxActiveSessions)
	}
	for i, want := range map[int]bool{0: true, 1: false, 2: true, maxActiveSessions: true} {
		if _, ok := s.skills.activeFor(ctxOf(i)); ok != want {
			t.Errorf("session %d remembered = %v, want %v", i, ok, want)
		}
	}
}
