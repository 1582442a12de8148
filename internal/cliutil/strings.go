package cliutil

import "strings"

// Strings is a flag that may be given many times, each value kept in
// order: --allow-env A --allow-env B. Values are not split, since a glob
// may hold a comma ({a,b}).
type Strings []string

// String joins the values for the flag package's defaults.
func (s *Strings) String() string { return strings.Join(*s, " ") }

// Set adds one value.
func (s *Strings) Set(v string) error {
	*s = append(*s, v)
	return nil
}
