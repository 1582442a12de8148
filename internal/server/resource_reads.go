package server

import (
	"slices"
	"sort"
	"sync"
)

// maxReadURIs bounds the resource URIs whose files are kept (each keeps at
// most eval.MaxReads files): a client reading many template URIs cannot
// make the server watch without bound.
const maxReadURIs = 4096

// resourceReads are the files each workspace resource read during its
// last read, by the URI read (docs/federation.md §11): with --watch, a
// change of one of them tells the URI's subscribers
// (notifications/resources/updated), as a refresh tells every resource's.
type resourceReads struct {
	mu     sync.Mutex
	byURI  map[string][]string
	resync chan struct{} // one pending: the watcher watches the new files' folders
}

func newResourceReads() *resourceReads {
	return &resourceReads{resync: make(chan struct{}, 1)}
}

// record replaces the files uri read; a URI past maxReadURIs is not kept.
func (r *resourceReads) record(uri string, files []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, known := r.byURI[uri]
	if !known && len(r.byURI) >= maxReadURIs || slices.Equal(old, files) {
		return
	}
	if r.byURI == nil {
		r.byURI = map[string][]string{}
	}
	if len(files) == 0 {
		delete(r.byURI, uri)
		return
	}
	r.byURI[uri] = slices.Clone(files)
	select {
	case r.resync <- struct{}{}:
	default:
	}
}

// files returns every kept file, sorted, for the watcher.
func (r *resourceReads) files() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, fs := range r.byURI {
		for _, f := range fs {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// readers returns the URIs that read one of changed, sorted.
func (r *resourceReads) readers(changed []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for uri, fs := range r.byURI {
		if slices.ContainsFunc(fs, func(f string) bool { return slices.Contains(changed, f) }) {
			out = append(out, uri)
		}
	}
	sort.Strings(out)
	return out
}
