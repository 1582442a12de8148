//go:build !unix

package safefs

import "io/fs"

// replaceFile on Windows: os.Root, each folder checked (replaceRooted).
func (r *Root) replaceFile(rel string, data []byte, perm fs.FileMode) error {
	return r.replaceRooted(rel, data, perm)
}

// openDirNoFollowRoot on Windows: os.Root, each folder checked.
func (r *Root) openDirNoFollowRoot(rel string, create bool) (*Root, error) {
	return r.openDirRooted(rel, create)
}
