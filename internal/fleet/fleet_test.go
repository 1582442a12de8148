package fleet

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/fleet/redistest"
	"github.com/vox-lang/vox-mcp/internal/session"
)

func open(t *testing.T, url string, grace time.Duration) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Open(ctx, Options{URL: url, Grace: grace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// eventually waits until cond holds, failing after a generous bound: the
// store's messages arrive asynchronously.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 20s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recorder records what a store's subscription delivered.
type recorder struct {
	mu        sync.Mutex
	refreshes int
	ended     []string
}

func (r *recorder) subscribe(s *Store) {
	s.Listen(func() { r.mu.Lock(); r.refreshes++; r.mu.Unlock() },
		func(key string) { r.mu.Lock(); r.ended = append(r.ended, key); r.mu.Unlock() })
}

func (r *recorder) get() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refreshes, slices.Clone(r.ended)
}

var skill = session.ActiveSkill{ID: "ws/review", Name: "review", Tools: []string{"vox_tool_search"}}

func TestTwoInstancesShareStateRevocationsAndRefreshes(t *testing.T) {
	rs := redistest.Start(t)
	a, b := open(t, rs.URL, 0), open(t, rs.URL, 0)
	var ra, rb recorder
	ra.subscribe(a)
	rb.subscribe(b)
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)

	if err := a.SetActiveSkill(ctx, "s1", exp, skill); err != nil {
		t.Fatal(err)
	}
	got, ok, err := b.ActiveSkill(ctx, "s1")
	if err != nil || !ok || got.ID != skill.ID || !slices.Equal(got.Tools, skill.Tools) {
		t.Fatalf("b.ActiveSkill(s1) = %+v, %v, %v; want the skill set on a", got, ok, err)
	}
	if err := b.ClearActiveSkill(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.ActiveSkill(ctx, "s1"); ok || err != nil {
		t.Fatalf("a.ActiveSkill(s1) after b cleared it = %v, %v", ok, err)
	}

	if err := a.SetLogLevel(ctx, "s1", exp, "debug"); err != nil {
		t.Fatal(err)
	}
	if l, ok, err := b.LogLevel(ctx, "s1"); l != "debug" || !ok || err != nil {
		t.Fatalf("b.LogLevel(s1) = %q, %v, %v; want the level set on a", l, ok, err)
	}
	if err := a.SetProtocolVersion(ctx, "s1", exp, "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := b.ProtocolVersion(ctx, "s1"); v != "2025-11-25" || !ok || err != nil {
		t.Fatalf("b.ProtocolVersion(s1) = %q, %v, %v; want the version set on a", v, ok, err)
	}
	if l, ok, err := b.LogLevel(ctx, "s1"); l != "debug" || !ok || err != nil {
		t.Fatalf("b.LogLevel(s1) after the version was set = %q, %v, %v; want it kept", l, ok, err)
	}
	if err := b.Drop(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.LogLevel(ctx, "s1"); ok || err != nil {
		t.Fatalf("a.LogLevel(s1) after b dropped the session = %v, %v", ok, err)
	}
	if _, ok, err := a.ProtocolVersion(ctx, "s1"); ok || err != nil {
		t.Fatalf("a.ProtocolVersion(s1) after b dropped the session = %v, %v", ok, err)
	}

	const uri = "skill://review/SKILL.md"
	subscribers := func(s *Store) string {
		got, err := s.Subscribers(ctx, uri)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, ",")
	}
	for _, k := range []string{"s1", "s4"} {
		if err := a.Subscribe(ctx, k, exp, "addr-"+k, uri); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "b sees a's subscriptions", func() bool { return subscribers(b) == "addr-s1,addr-s4" })
	if err := b.Unsubscribe(ctx, "s4", uri); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a sees b's unsubscription", func() bool { return subscribers(a) == "addr-s1" })
	if err := b.Subscribe(ctx, "s1", exp, "addr-s1", "skill://other/SKILL.md"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b's mirror has its own subscription", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.subs["s1"]) == 2 })
	if err := b.Drop(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a sees the dropped session's subscriptions go", func() bool { return subscribers(a) == "" })
	if n, _ := a.rdb.HLen(ctx, a.subsKey).Result(); n != 0 {
		t.Fatalf("the store keeps %d subscriptions of a dropped session", n)
	}

	if err := a.Revoke(ctx, "s2", exp); err != nil {
		t.Fatal(err)
	}
	if r, err := b.Revoked(ctx, "s2"); !r || err != nil {
		t.Fatalf("b.Revoked(s2) = %v, %v; want true", r, err)
	}
	if r, err := b.Revoked(ctx, "s3"); r || err != nil {
		t.Fatalf("b.Revoked(s3) = %v, %v; want false", r, err)
	}
	// An id that expired already needs no entry.
	if err := a.Revoke(ctx, "old", time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b ends the open requests of the session a revoked", func() bool {
		_, ended := rb.get()
		return slices.Equal(ended, []string{"s2"})
	})
	if err := a.AnnounceRefresh(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b rescans after a's refresh", func() bool { n, _ := rb.get(); return n == 1 })
	if n, ended := ra.get(); n != 0 || len(ended) != 0 {
		t.Errorf("a reacted to its own announcements: %d refreshes, ended %v", n, ended)
	}
}

// TestViewIsOneRoundTrip: what a call reads of its session — the
// revocation and the active skill — is one script, and answers as
// Revoked and ActiveSkill do.
func TestViewIsOneRoundTrip(t *testing.T) {
	rs := redistest.Start(t)
	a, b := open(t, rs.URL, 0), open(t, rs.URL, 0)
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	if err := a.SetActiveSkill(ctx, "skilled", exp, skill); err != nil {
		t.Fatal(err)
	}
	if err := a.SetActiveSkill(ctx, "ended", exp, skill); err != nil {
		t.Fatal(err)
	}
	if err := a.Revoke(ctx, "ended", exp); err != nil {
		t.Fatal(err)
	}
	if _, err := b.View(ctx, "warm-up"); err != nil { // loads the script
		t.Fatal(err)
	}
	if err := b.rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]session.View{
		"skilled": {Skill: skill, HasSkill: true},
		"ended":   {Revoked: true, Skill: skill, HasSkill: true},
		"plain":   {},
	} {
		got, err := b.View(ctx, key)
		if err != nil || got.Revoked != want.Revoked || got.HasSkill != want.HasSkill || got.Skill.ID != want.Skill.ID ||
			!slices.Equal(got.Skill.Tools, want.Skill.Tools) || got.SkillErr != nil {
			t.Errorf("View(%s) = %+v, %v; want %+v", key, got, err, want)
		}
	}
	stats, err := b.rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var commands []string
	for line := range strings.SplitSeq(stats, "\n") {
		if name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls="); ok && !strings.HasPrefix(name, "cmdstat_info") && !strings.HasPrefix(name, "cmdstat_config") {
			calls, _, _ := strings.Cut(rest, ",")
			commands = append(commands, name+"="+calls)
		}
	}
	slices.Sort(commands)
	// Three views: three scripts, each reading the epoch and two fields
	// (Redis counts the commands a script runs too).
	if got := strings.Join(commands, " "); got != "cmdstat_evalsha=3 cmdstat_get=3 cmdstat_hget=6" {
		t.Errorf("commands of three views: %s", got)
	}
}

func TestBoundsRefuseNewEntries(t *testing.T) {
	rs := redistest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Open(ctx, Options{URL: rs.URL, MaxStates: 1, MaxRevocations: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exp := time.Now().Add(time.Hour)
	if err := s.SetActiveSkill(ctx, "a", exp, skill); err != nil {
		t.Fatal(err)
	}
	if err := s.SetActiveSkill(ctx, "a", exp, skill); err != nil {
		t.Fatalf("replacing a session's state is no new entry: %v", err)
	}
	if err := s.SetActiveSkill(ctx, "b", exp, skill); !errors.Is(err, session.ErrFull) {
		t.Fatalf("a second state over the bound of 1: %v, want ErrFull", err)
	}
	if err := s.Revoke(ctx, "a", exp); err != nil {
		t.Fatal(err)
	}
	var full *session.FullError
	if err := s.Revoke(ctx, "b", exp); !errors.As(err, &full) || full.RetryAfter <= 0 {
		t.Fatalf("a second revocation over the bound of 1: %v, want a FullError with a Retry-After", err)
	}
}

// TestUnreachableStoreFailsClosed is the decided behaviour of
// docs/federation.md §8 for a store that cannot answer: revocations keep
// applying, a session with an active skill is refused, a session without
// state is served, writes fail; and a store restarted empty is filled
// again from the instances' mirrors.
func TestUnreachableStoreFailsClosed(t *testing.T) {
	rs := redistest.Start(t)
	a, b := open(t, rs.URL, time.Hour), open(t, rs.URL, time.Hour)
	var rb recorder
	rb.subscribe(b)
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	if err := a.SetActiveSkill(ctx, "skilled", exp, skill); err != nil {
		t.Fatal(err)
	}
	if err := a.Revoke(ctx, "ended", exp); err != nil {
		t.Fatal(err)
	}
	if err := a.SetLogLevel(ctx, "plain", exp, "warning"); err != nil {
		t.Fatal(err)
	}
	if err := a.SetProtocolVersion(ctx, "plain", exp, "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b's mirror has a's writes", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		_, s := b.states["skilled"]
		_, r := b.revoked["ended"]
		_, l := b.levels["plain"]
		_, v := b.versions["plain"]
		return s && r && l && v
	})

	rs.Kill()
	for _, st := range []*Store{a, b} {
		if r, err := st.Revoked(ctx, "ended"); !r || err != nil {
			t.Errorf("Revoked(ended) with the store down = %v, %v; want true from the mirror", r, err)
		}
		if r, err := st.Revoked(ctx, "plain"); r || err != nil {
			t.Errorf("Revoked(plain) with the store down = %v, %v; want false from the mirror", r, err)
		}
		if _, _, err := st.ActiveSkill(ctx, "skilled"); err == nil || !strings.Contains(err.Error(), "active skill whose allowlist must keep applying") {
			t.Errorf("ActiveSkill(skilled) with the store down: %v; want an error (fail closed)", err)
		}
		if _, ok, err := st.ActiveSkill(ctx, "plain"); ok || err != nil {
			t.Errorf("ActiveSkill(plain) with the store down = %v, %v; want none: a session without state keeps working", ok, err)
		}
		if v, err := st.View(ctx, "ended"); !v.Revoked || err != nil {
			t.Errorf("View(ended) with the store down = %+v, %v; want revoked from the mirror", v, err)
		}
		if v, err := st.View(ctx, "skilled"); err != nil || v.Revoked || v.HasSkill || v.SkillErr == nil ||
			!strings.Contains(v.SkillErr.Error(), "active skill whose allowlist must keep applying") {
			t.Errorf("View(skilled) with the store down = %+v, %v; want a SkillErr (fail closed)", v, err)
		}
		if v, err := st.View(ctx, "plain"); err != nil || v.Revoked || v.HasSkill || v.SkillErr != nil {
			t.Errorf("View(plain) with the store down = %+v, %v; want nothing: a session without state keeps working", v, err)
		}
		if l, ok, err := st.LogLevel(ctx, "plain"); l != "warning" || !ok || err != nil {
			t.Errorf("LogLevel(plain) with the store down = %q, %v, %v; want the mirror's warning", l, ok, err)
		}
		if v, ok, err := st.ProtocolVersion(ctx, "plain"); v != "2025-11-25" || !ok || err != nil {
			t.Errorf("ProtocolVersion(plain) with the store down = %q, %v, %v; want the mirror's 2025-11-25", v, ok, err)
		}
		if err := st.Revoke(ctx, "plain", exp); err == nil || !strings.Contains(err.Error(), "cannot be reached") {
			t.Errorf("Revoke with the store down: %v; want an error", err)
		}
		if err := st.SetActiveSkill(ctx, "plain", exp, skill); err == nil {
			t.Error("SetActiveSkill with the store down succeeded")
		}
	}

	// Calls keep coming during an outage: go-redis then stops dialing
	// for a while (a second) once too many dials failed, so that the
	// first reload after the store is back fails and must be retried.
	for range 40 {
		_, _ = b.View(ctx, "plain")
	}

	// Restarted without its data: the mirrors fill it again.
	rs.Restart()
	eventually(t, "b rescans once the store is back", func() bool { n, _ := rb.get(); return n >= 1 })
	for _, st := range []*Store{a, b} {
		eventually(t, "the store answers with the refilled state", func() bool {
			got, ok, err := st.ActiveSkill(ctx, "skilled")
			r, rerr := st.Revoked(ctx, "ended")
			l, _, lerr := st.LogLevel(ctx, "plain")
			v, _, verr := st.ProtocolVersion(ctx, "plain")
			return err == nil && ok && got.ID == skill.ID && r && rerr == nil && l == "warning" && lerr == nil && v == "2025-11-25" && verr == nil
		})
	}
	// And it is the store again that answers, not the mirror.
	if err := b.ClearActiveSkill(ctx, "skilled"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.ActiveSkill(ctx, "skilled"); ok || err != nil {
		t.Fatalf("a.ActiveSkill after b cleared it = %v, %v", ok, err)
	}
}

func TestStaleMirrorStopsAnswering(t *testing.T) {
	rs := redistest.Start(t)
	s := open(t, rs.URL, time.Nanosecond)
	rs.Kill()
	time.Sleep(time.Millisecond) // past the grace of 1ns
	if _, err := s.Revoked(context.Background(), "any"); err == nil {
		t.Fatal("Revoked answered from a mirror older than its grace")
	}
	if _, _, err := s.ActiveSkill(context.Background(), "any"); err == nil {
		t.Fatal("ActiveSkill answered from a mirror older than its grace")
	}
	if _, err := s.View(context.Background(), "any"); err == nil {
		t.Fatal("View answered from a mirror older than its grace")
	}
}

func TestOpenRefusesAnUnreachableStore(t *testing.T) {
	rs := redistest.Start(t)
	rs.Kill()
	_, err := Open(context.Background(), Options{URL: rs.URL})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the store") {
		t.Fatalf("Open of a stopped store: %v", err)
	}
	_, err = Open(context.Background(), Options{URL: "http://user:secret@host/"})
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "redis://HOST:PORT/DB") {
		t.Fatalf("Open of a bad URL: %v", err)
	}
}
