package skills

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vox-lang/vox-mcp/internal/search"
)

// ErrUnknownSkill is wrapped by the errors of lookups that find no
// installed skill.
var ErrUnknownSkill = errors.New("no installed skill")

// Registry holds the installed skills of one server process. Reads go
// through lock-free immutable Snapshots; changes are serialised, each builds
// one new Snapshot (with its search index and resources) and announces it.
type Registry struct {
	cfg Config

	mu        sync.Mutex // serialises changes, version and listeners
	version   uint64
	listeners []func(*Snapshot)
	cur       atomic.Pointer[Snapshot]
	// uninstalled are the folders Uninstall took out of this process's
	// registry: Rehydrate (a file watcher) leaves them out, until a
	// Hydrate or an install brings them back.
	uninstalled map[string]bool
}

// New returns an empty registry for cfg; Hydrate fills it.
func New(cfg Config) *Registry {
	r := &Registry{cfg: cfg}
	r.cur.Store(newSnapshot(0, nil))
	return r
}

// Config is the registry's configuration.
func (r *Registry) Config() Config { return r.cfg }

// Snapshot is the current state. It never changes; later changes make new
// snapshots.
func (r *Registry) Snapshot() *Snapshot { return r.cur.Load() }

// OnChange registers fn to be called after every change with the new
// snapshot, synchronously and in version order, so that when Install (or
// any other change) returns, every listener has seen its result. fn runs
// while changes are locked: it may read the registry but must not change
// it.
func (r *Registry) OnChange(fn func(*Snapshot)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listeners = append(r.listeners, fn)
}

// commit installs skills as the new state; r.mu must be held.
func (r *Registry) commit(skills []*Installed) *Snapshot {
	for _, in := range skills {
		delete(r.uninstalled, in.Path)
	}
	r.version++
	s := newSnapshot(r.version, skills)
	r.cur.Store(s)
	for _, fn := range r.listeners {
		fn(s)
	}
	return s
}

// Hydrate discovers the skills under the search roots and makes the first
// skill of each id the installed set, replacing what the registry held. It
// returns discovery's warnings (skipped skills, shadowed ids, format
// problems) for the caller to log.
//
// A skill whose folder did not change since it was loaded (same folder,
// same SKILL.md, the same files with the same sizes and modification
// times) stays the same *Installed, so that a listener comparing two
// snapshots sees only what changed (notifications/resources/updated, the
// server's subscriptions).
func (r *Registry) Hydrate() []string {
	_, warnings := r.hydrate(false)
	return warnings
}

// Rehydrate is Hydrate for a watcher: it commits a new state only when a
// skill was added, removed or changed, and reports whether it did.
func (r *Registry) Rehydrate() (changed bool, warnings []string) {
	return r.hydrate(true)
}

func (r *Registry) hydrate(onlyChanges bool) (bool, []string) {
	// Scan under the lock, so an install that finishes meanwhile is either
	// seen on disk or committed after this hydration, never lost.
	r.mu.Lock()
	defer r.mu.Unlock()
	found, warnings := Scan(r.cfg.SearchRoots(), r.cfg.ReferencePlaces()...)
	prev := r.cur.Load()
	var winners []*Installed
	same := true
	for _, f := range found {
		if f.ShadowedBy != "" || onlyChanges && r.uninstalled[f.Path] {
			continue
		}
		in := f.Installed
		old, ok := prev.byID[in.ID]
		if ok && unchanged(old, in) {
			in = old
		} else {
			same = false
		}
		winners = append(winners, in)
	}
	if onlyChanges && same && len(winners) == len(prev.skills) {
		return false, warnings
	}
	r.commit(winners)
	return true, warnings
}

// unchanged reports whether cur, just loaded, is old's folder as old
// found it.
func unchanged(old, cur *Installed) bool {
	return old.Path == cur.Path && old.Root == cur.Root && old.real == cur.real &&
		old.Dev == cur.Dev && old.Ino == cur.Ino &&
		slices.Equal(old.Files, cur.Files) && reflect.DeepEqual(old.Skill, cur.Skill)
}

// DiscoverEntry is one skill folder under the search roots, as
// vox_skill_discover reports it.
type DiscoverEntry struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Path string `json:"path"`
	Root string `json:"root"`
	// Installed is whether this folder is the one the registry serves for
	// its id.
	Installed bool `json:"installed"`
	// ShadowedBy is the folder that took the id first, or nil.
	ShadowedBy *string `json:"shadowed_by"`
}

// Discover reports what the search roots hold now, in discovery order,
// which of those folders are installed, and the skill folders it could
// not load. It changes nothing.
func (r *Registry) Discover() ([]DiscoverEntry, []Skipped, []string) {
	found, skipped, warnings := ScanReport(r.cfg.SearchRoots(), r.cfg.ReferencePlaces()...)
	snap := r.Snapshot()
	entries := make([]DiscoverEntry, 0, len(found))
	for _, f := range found {
		e := DiscoverEntry{ID: f.ID, Name: f.Name, Path: f.Path, Root: f.Root}
		if in, ok := snap.byID[f.ID]; ok && in.Path == f.Path {
			e.Installed = true
		}
		if f.ShadowedBy != "" {
			by := f.ShadowedBy
			e.ShadowedBy = &by
		}
		entries = append(entries, e)
	}
	return entries, skipped, warnings
}

// Uninstall removes a skill (by id, else name) from this process's
// registry; its folder stays, so it comes back at the next start (or the
// next Hydrate), but not when a watcher reloads the skills (Rehydrate).
func (r *Registry) Uninstall(idOrName string) (*Installed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	snap := r.Snapshot()
	in, err := snap.lookup(idOrName)
	if err != nil {
		return nil, err
	}
	r.commit(snap.without(in))
	if r.uninstalled == nil {
		r.uninstalled = map[string]bool{}
	}
	r.uninstalled[in.Path] = true
	return in, nil
}

// Snapshot is one immutable state of the registry.
type Snapshot struct {
	version uint64
	skills  []*Installed // sorted by id
	byID    map[string]*Installed
	byName  map[string]*Installed
	// byDeclared holds the dotted ids as written (Skill.DeclaredID): an
	// id holds no dot, so one never hides another skill's id.
	byDeclared map[string]*Installed
	index      *search.Index

	resources []Resource
	resByURI  map[string]int
	indexJSON []byte
}

// Search field weights (docs/skills.md §3).
const (
	weightID          = 1
	weightName        = 1
	weightDescription = 2
	weightTags        = 2
	weightBody        = 0.5
)

func newSnapshot(version uint64, skills []*Installed) *Snapshot {
	sorted := append([]*Installed(nil), skills...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	s := &Snapshot{
		version: version,
		skills:  sorted,
		byID:    make(map[string]*Installed, len(sorted)),
		byName:  make(map[string]*Installed, len(sorted)),

		byDeclared: map[string]*Installed{},
	}
	docs := make([]search.Doc, len(sorted))
	for i, in := range sorted {
		s.byID[in.ID] = in
		if _, taken := s.byName[in.Name]; !taken {
			s.byName[in.Name] = in
		}
		if _, taken := s.byDeclared[in.DeclaredID]; in.DeclaredID != "" && !taken {
			s.byDeclared[in.DeclaredID] = in
		}
		docs[i] = search.Doc{Key: in.ID, Fields: []search.Field{
			{Weight: weightID, Text: in.ID},
			{Weight: weightName, Text: in.Name},
			{Weight: weightDescription, Text: in.Description},
			{Weight: weightTags, Text: strings.Join(in.Tags, " ")},
			{Weight: weightBody, Text: in.Body},
		}}
	}
	s.index = search.Build(docs)
	s.buildResources()
	return s
}

// Version counts the registry's changes; it grows with every change.
func (s *Snapshot) Version() uint64 { return s.version }

// Skills are the installed skills, sorted by id. The slice is the
// caller's; the skills must not be modified.
func (s *Snapshot) Skills() []*Installed { return append([]*Installed(nil), s.skills...) }

// Len is the number of installed skills.
func (s *Snapshot) Len() int { return len(s.skills) }

// Get finds an installed skill by id, else by name, else by its id as
// written when that was not a valid id (a dotted "vox.compiler").
func (s *Snapshot) Get(idOrName string) (*Installed, bool) {
	if in, ok := s.byID[idOrName]; ok {
		return in, true
	}
	if in, ok := s.byName[idOrName]; ok {
		return in, true
	}
	in, ok := s.byDeclared[idOrName]
	return in, ok
}

func (s *Snapshot) lookup(idOrName string) (*Installed, error) {
	if in, ok := s.Get(idOrName); ok {
		return in, nil
	}
	return nil, fmt.Errorf("%w %q: vox_skill_list shows the installed skills", ErrUnknownSkill, idOrName)
}

// Lookup is Get with an error that says what to do next.
func (s *Snapshot) Lookup(idOrName string) (*Installed, error) { return s.lookup(idOrName) }

func (s *Snapshot) without(gone *Installed) []*Installed {
	out := make([]*Installed, 0, len(s.skills))
	for _, in := range s.skills {
		if in != gone {
			out = append(out, in)
		}
	}
	return out
}

// DefaultSearchLimit is the number of results of a search without a limit.
const DefaultSearchLimit = 10

// SearchResult is one hit of vox_skill_search.
type SearchResult struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
}

// Search ranks the installed skills against query with BM25F (id and name
// weigh 1, description and tags 2, body 0.5), best first, ties by id;
// limit <= 0 means DefaultSearchLimit.
func (s *Snapshot) Search(query string, limit int) []SearchResult {
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	hits := s.index.Search(query, limit)
	out := make([]SearchResult, len(hits))
	for i, h := range hits {
		in := s.skills[h.Doc]
		out[i] = SearchResult{ID: in.ID, Name: in.Name, Description: in.Description, Score: h.Score}
	}
	return out
}

// Summary is a skill as vox_skill_list shows it.
type Summary struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Version     string   `json:"version"`
	Category    string   `json:"category"`
	Tags        []string `json:"tags"`
	Tools       []string `json:"tools"`
	Path        string   `json:"path"`
	Root        string   `json:"root"`
}

// Summary is the vox_skill_list entry of the skill.
func (in *Installed) Summary() Summary {
	return Summary{ID: in.ID, Name: in.Name, Description: in.Description, Version: in.Version,
		Category: in.Category, Tags: in.Tags, Tools: in.Tools, Path: in.Path, Root: in.Root}
}

// Info is a skill as vox_skill_info shows it: the manifest plus where it
// lives and its files.
type Info struct {
	*Skill
	Path  string   `json:"path"`
	Root  string   `json:"root"`
	Files []string `json:"files"`
}

// Info is the vox_skill_info result of the skill.
func (in *Installed) Info() Info {
	return Info{Skill: in.Skill, Path: in.Path, Root: in.Root, Files: in.FilePaths()}
}
