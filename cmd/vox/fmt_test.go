package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFmt drives vox fmt as a user does: print, -l, --check, -w, and a
// file that does not parse.
func TestFmt(t *testing.T) {
	dir := t.TempDir()
	messy := filepath.Join(dir, "messy.vox")
	clean := filepath.Join(dir, "clean.vox")
	bad := filepath.Join(dir, "bad.vox")
	os.WriteFile(messy, []byte("@tool \"t\"\nfn t( a:int )to int {\n  a   // keep me\n}\n"), 0o644)
	os.WriteFile(clean, []byte("fn c() to int {\n    1\n}\n"), 0o644)
	os.WriteFile(bad, []byte("@tool \"t\"\nfn t() to int {\n    let = 1\n}\n"), 0o644)
	want := "@tool \"t\"\nfn t(a: int) to int {\n    a // keep me\n}\n"

	if code, out, errs := vox(t, "fmt", messy); code != 0 || out != want {
		t.Errorf("vox fmt FILE: code %d, stdout %q (want %q), stderr %q", code, out, want, errs)
	}
	if code, out, _ := vox(t, "fmt", "-l", messy, clean); code != 0 || strings.TrimSpace(out) != messy {
		t.Errorf("vox fmt -l: code %d, stdout %q", code, out)
	}
	if code, _, errs := vox(t, "fmt", "--check", messy, clean); code != 1 || !strings.Contains(errs, "1 file(s) not formatted: "+messy) {
		t.Errorf("vox fmt --check: code %d, stderr %q", code, errs)
	}
	if code, _, errs := vox(t, "fmt", "--check", bad); code != 1 || !strings.Contains(errs, bad+":3:9: ") {
		t.Errorf("vox fmt of a broken file: code %d, stderr %q", code, errs)
	}
	if code, _, errs := vox(t, "fmt", "-w", dir); code != 1 || !strings.Contains(errs, "bad.vox:3:9") {
		t.Errorf("vox fmt -w DIR: code %d, stderr %q", code, errs)
	}
	if got, _ := os.ReadFile(messy); string(got) != want {
		t.Errorf("-w wrote %q, want %q", got, want)
	}
	if got, _ := os.ReadFile(bad); !strings.Contains(string(got), "let = 1") {
		t.Errorf("-w changed a file that does not parse: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("-w left files behind: %v", entries)
	}
	if code, _, errs := vox(t, "fmt", "--check", messy, clean); code != 0 {
		t.Errorf("after -w, --check: code %d, stderr %q", code, errs)
	}
}
