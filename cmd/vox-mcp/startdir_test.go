package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startDirEnv gives the in-process server a home folder of its own and
// no surface cache, and returns the home folder.
func startDirEnv(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("VOX_MCP_SURFACE_CACHE", "off")
	t.Setenv("VOX_SKILL_ROOTS", t.TempDir())
	return home
}

// TestStartDirRefused: started without --root in / or in the home folder
// (however the working directory is spelled), vox-mcp exits with a usage
// error that says how to configure the client, before serving anything.
func TestStartDirRefused(t *testing.T) {
	home := startDirEnv(t)
	cases := []struct{ dir, what string }{
		{string(filepath.Separator), "the root of a file system"},
		{home, "your home folder"},
	}
	// The home folder spelled through a symbolic link (where one can be
	// made: Windows may need a privilege).
	link := filepath.Join(t.TempDir(), "home-link")
	if err := os.Symlink(home, link); err == nil {
		cases = append(cases, struct{ dir, what string }{link, "your home folder"})
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			t.Chdir(c.dir)
			wd, err := os.Getwd()
			if err != nil {
				t.Fatal(err)
			}
			if c.dir == link && wd != link {
				t.Skipf("the working directory reads as %s, not through the link", wd)
			}
			var out, errb bytes.Buffer
			// The request would be answered if the server started.
			req := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
			code := run(nil, strings.NewReader(req), &out, &errb)
			msg := errb.String()
			if code != 2 || out.Len() != 0 {
				t.Fatalf("exit %d, stdout %q, stderr %q: want exit 2 and nothing served", code, out.String(), msg)
			}
			for _, want := range []string{
				"vox-mcp: refusing to serve the working directory " + wd + " as the workspace without --root: it is " + c.what,
				`give the absolute path of vox-mcp as "command" and name the project with --root in "args"`,
				`"args":["--root","/path/to/project"]`,
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr lacks %q:\n%s", want, msg)
				}
			}
		})
	}
}

// TestStartDirExplicitRoot: a folder named with --root is served whatever
// it is, and a project folder inside the home folder needs no flag.
func TestStartDirExplicitRoot(t *testing.T) {
	home := startDirEnv(t)
	project := filepath.Join(home, "project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{home, []string{"--root", home}},
		{project, nil},
	} {
		t.Chdir(c.dir)
		var out, errb bytes.Buffer
		code := run(c.args, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), &out, &errb)
		if code != 0 || !strings.Contains(out.String(), `"id":1,"result":{}`) {
			t.Errorf("in %s with %v: exit %d, stdout %q, stderr %q: want the ping answered", c.dir, c.args, code, out.String(), errb.String())
		}
	}
}

// TestStartDirRefusal covers the decision on its own: only the volume root
// and the home folder itself are refused, and the configuration snippet
// is valid JSON whatever the executable's path holds.
func TestStartDirRefusal(t *testing.T) {
	home := t.TempDir()
	sub := filepath.Join(home, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := `C:\Program Files\vox "mcp"\vox-mcp.exe`
	for _, c := range []struct {
		wd, home string
		refused  bool
	}{
		{"/", home, true},
		{"/", "", true},
		{home, home, true},
		{home + string(filepath.Separator), home, true},
		{sub, home, false},
		// An ancestor of the home folder is served: containers and CI set
		// HOME inside the project.
		{filepath.Dir(home), home, false},
		{home, "", false},
	} {
		err := startDirRefusal(c.wd, c.home, exe)
		if (err != nil) != c.refused {
			t.Errorf("wd %s, home %q: err %v, want refused %v", c.wd, c.home, err, c.refused)
			continue
		}
		if err == nil {
			continue
		}
		line := ""
		for l := range strings.SplitSeq(err.Error(), "\n") {
			if strings.HasPrefix(l, "  {") {
				line = strings.TrimSpace(l)
			}
		}
		var cfg struct {
			MCPServers map[string]struct {
				Command string
				Args    []string
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal([]byte(line), &cfg); err != nil {
			t.Fatalf("the snippet %q is not JSON: %v", line, err)
		}
		if s := cfg.MCPServers["vox"]; s.Command != exe || strings.Join(s.Args, " ") != "--root /path/to/project" {
			t.Errorf("snippet = %+v", cfg)
		}
	}
}
