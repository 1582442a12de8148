//go:build !linux && !darwin && !windows

package sandbox

import (
	"context"
	"errors"
	"os"
	"runtime"
)

// errNoNamespaces is why nothing runs on this system: the sandbox needs
// Linux namespaces, and the helper of the unisolated path (a child
// subreaper, the seccomp filter) is only written and tested for Linux.
var errNoNamespaces = errors.New("sandbox: skill commands need Linux, this is " + runtime.GOOS)

// FolderOf has no device and inode to give here.
func FolderOf(os.FileInfo) FolderID { return FolderID{} }

// MaybeRunInit has nothing to do where there is no sandbox init.
func MaybeRunInit() { initReady.Store(true) }

// Run fails closed: there are no Linux namespaces here.
func (c Config) Run(ctx context.Context, spec Spec) (Result, error) { return Result{}, errNoNamespaces }

// RunUnisolated fails too: it is only supported on Linux.
func (c Config) RunUnisolated(ctx context.Context, spec Spec) (Result, error) {
	return Result{}, errNoNamespaces
}

// SelfTest reports that isolation is unavailable.
func (c Config) SelfTest(ctx context.Context) Report { return Report{Err: errNoNamespaces, config: c} }
