package fleet

import "github.com/vox-lang/vox-mcp/internal/session"

// mirroredSubscriptions is what the mirror knows of the live
// subscriptions of the session key, as session.CheckSubscription takes it
// for a subscription to uri: their number, their bytes
// (session.SubscriptionCost each), whether uri is one of them, and uri.
func (s *Store) mirroredSubscriptions(key, uri string) (n, bytes int, has bool, _ string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for u, e := range s.subs[key] {
		if live(e.Expires, now) {
			n++
			bytes += session.SubscriptionCost(u)
			has = has || u == uri
		}
	}
	return n, bytes, has, uri
}
