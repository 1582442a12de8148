//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"runtime"
)

// errNoNamespaces is why nothing runs on this system: the sandbox needs
// Linux namespaces, and the process-group handling of the unisolated path is
// only written and tested for Linux.
var errNoNamespaces = errors.New("sandbox: skill commands need Linux, this is " + runtime.GOOS)

// MaybeRunInit has nothing to do where there is no sandbox init.
func MaybeRunInit() { initReady.Store(true) }

// Run fails closed: there are no Linux namespaces here.
func Run(ctx context.Context, spec Spec) (Result, error) { return Result{}, errNoNamespaces }

// RunUnisolated fails too: it is only supported on Linux.
func RunUnisolated(ctx context.Context, spec Spec) (Result, error) { return Result{}, errNoNamespaces }
