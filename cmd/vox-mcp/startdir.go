package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// checkStartDir refuses to take the working directory as the workspace
// when it is a place no one means as a project: the root of a file system
// or the user's home folder (docs/security.md, "Where the server
// starts"). Desktop clients start stdio servers there; from / a scan
// walked the whole disk, /proc included, and served the .vox tools of
// every checkout it found. root is the --root flag: any folder named
// there, / and the home folder included, is the user's choice and is
// served.
//
// Refusing beats serving the catalog tools without a workspace: a server
// that starts with half its surface looks healthy while the agent lacks
// every project tool, and nothing tells the user why; a refusal shows up
// in the client's server list, with this message in its log.
func checkStartDir(root string) error {
	if root != "" {
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		// server.New reports the unreadable working directory.
		return nil
	}
	home, _ := os.UserHomeDir()
	exe, err := os.Executable()
	if err != nil {
		exe = "/absolute/path/to/vox-mcp"
	}
	return startDirRefusal(wd, home, exe)
}

// startDirRefusal is checkStartDir for a working directory wd, a home
// folder (empty when unknown) and the absolute path of this executable,
// which the message offers as the client's "command".
func startDirRefusal(wd, home, exe string) error {
	var what string
	switch {
	case isVolumeRoot(wd):
		what = "the root of a file system (a scan would walk the whole disk and serve the .vox tools of every project on it)"
	case home != "" && sameDir(wd, home):
		what = "your home folder (a scan would walk every project in it and serve their .vox tools)"
	default:
		return nil
	}
	type server struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	snippet, err := json.Marshal(map[string]map[string]server{
		"mcpServers": {"vox": {Command: exe, Args: []string{"--root", "/path/to/project"}}},
	})
	if err != nil {
		return err
	}
	return fmt.Errorf("refusing to serve the working directory %s as the workspace without --root: it is %s.\n"+
		"desktop clients start servers in / or in the home folder: in the client's configuration, give the absolute path of vox-mcp as \"command\" and name the project with --root in \"args\", for example:\n"+
		"  %s\n"+
		"(a folder named with --root is served whatever it is, / and the home folder included)", wd, what, snippet)
}

// isVolumeRoot reports whether dir is the root of its volume: / on Unix,
// a drive root such as C:\ or a share root such as \\host\share\ on
// Windows. It compares the folders themselves, so a symbolic link to /
// or a working directory spelled through one is caught too. Other mount
// points are served: a project folder is often one (a container's bind
// mount, a devcontainer's workspace).
func isVolumeRoot(dir string) bool {
	clean := filepath.Clean(dir)
	if filepath.Dir(clean) == clean {
		return true
	}
	return sameDir(clean, filepath.VolumeName(clean)+string(filepath.Separator))
}

// sameDir reports whether a and b are the same folder (same device and
// inode, or file index on Windows), however they are spelled: through a
// symbolic link, in another letter case on a case-insensitive file
// system, or with a trailing separator.
func sameDir(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(ia, ib)
}
