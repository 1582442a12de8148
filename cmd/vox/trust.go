package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/vox-lang/vox-mcp/internal/cliutil"
	"github.com/vox-lang/vox-mcp/internal/trust"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// runTrust is "vox trust [DIR]", "vox trust --list" and "vox trust
// --revoke DIR" (docs/security.md, "Consent: a repository grants itself
// nothing"): the person's grant of the powers a workspace's scan config
// asks for, recorded in the user's config folder.
func runTrust(s *streams, args []string) int {
	flags := cliutil.NewFlagSet("vox trust", s.err)
	list := flags.Bool("list", false, "print every trusted workspace and whether its scan config still asks for what was trusted")
	revoke := flags.String("revoke", "", "forget the trust of the workspace at `DIR`")
	flags.Usage = func() {
		fmt.Fprintln(s.err, "usage: vox trust [DIR] | vox trust --list | vox trust --revoke DIR")
		flags.PrintDefaults()
	}
	pos, err := cliutil.Parse(flags, args)
	if err != nil {
		return usageExit(err)
	}
	if len(pos) > 1 || (len(pos) == 1 || *list) && *revoke != "" || len(pos) == 1 && *list {
		flags.Usage()
		return cliutil.ExitUsage
	}
	store, err := trust.DefaultStore()
	if err != nil {
		fmt.Fprintf(s.err, "vox trust: %v\n", err)
		return cliutil.ExitProblem
	}
	switch {
	case *list:
		return trustList(s, store)
	case *revoke != "":
		found, err := store.Revoke(*revoke)
		if err != nil {
			fmt.Fprintf(s.err, "vox trust: %v\n", err)
			return cliutil.ExitProblem
		}
		if !found {
			fmt.Fprintf(s.err, "vox trust: %s is not trusted (vox trust --list shows what is)\n", *revoke)
			return cliutil.ExitProblem
		}
		fmt.Fprintf(s.out, "revoked the trust of %s: vox-mcp withholds its scan config's powers from its next start or refresh\n", *revoke)
		return cliutil.ExitOK
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	root, err := trust.Canonical(dir)
	if err != nil {
		fmt.Fprintf(s.err, "vox trust: %v\n", err)
		return cliutil.ExitProblem
	}
	if info, err := os.Stat(root); err != nil || !info.IsDir() {
		fmt.Fprintf(s.err, "vox trust: %s is not a folder: name the workspace root\n", dir)
		return cliutil.ExitProblem
	}
	cfg, err := workspace.LoadConfig(root)
	if err != nil {
		fmt.Fprintln(s.err, err)
		fmt.Fprintln(s.err, "vox trust: the scan config is invalid: nothing was trusted")
		return cliutil.ExitProblem
	}
	req := cfg.Requested().Normal()
	if req.Empty() {
		fmt.Fprintf(s.out, "%s: its scan config asks for no power (no env_allow, no write_globs): nothing to trust\n", root)
		return cliutil.ExitOK
	}
	rec, err := store.Trust(root, req, time.Now())
	if err != nil {
		fmt.Fprintf(s.err, "vox trust: %v\n", err)
		return cliutil.ExitProblem
	}
	fmt.Fprintf(s.out, "trusted %s: %s (%s)\n", rec.Root, req, rec.Digest)
	fmt.Fprintln(s.out, "vox-mcp grants them from its next start or refresh; a change of what the scan config asks for needs vox trust again")
	return cliutil.ExitOK
}

// trustList prints one line per record: the root, what was trusted, and
// whether the scan config still asks for exactly that.
func trustList(s *streams, store *trust.Store) int {
	recs, err := store.Records()
	if err != nil {
		fmt.Fprintf(s.err, "vox trust: %v\n", err)
		return cliutil.ExitProblem
	}
	if len(recs) == 0 {
		fmt.Fprintf(s.out, "no trusted workspace (%s)\n", store.Path)
		return cliutil.ExitOK
	}
	for _, r := range recs {
		fmt.Fprintf(s.out, "%s\t%s\t%s\t%s\n", r.Root, r.Trusted.Format(time.RFC3339), r.Powers(), trustState(r))
	}
	return cliutil.ExitOK
}

// trustState says whether the record still grants what the workspace's
// scan config asks for.
func trustState(r trust.Record) string {
	if _, err := os.Stat(r.Root); errors.Is(err, os.ErrNotExist) {
		return "the folder is gone: vox trust --revoke it"
	}
	cfg, err := workspace.LoadConfig(r.Root)
	if err != nil {
		return "the scan config is invalid"
	}
	if cfg.Requested().Digest() != r.Digest {
		return "the scan config now asks for " + cfg.Requested().Normal().String() + ": withheld until vox trust again"
	}
	return "granted"
}
