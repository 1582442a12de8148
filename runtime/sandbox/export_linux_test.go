package sandbox

import "context"

// RunFailingAt is Run with set-up step failStep made to fail with EPERM.
func RunFailingAt(ctx context.Context, spec Spec, failStep string) (Result, error) {
	return run(ctx, spec, failStep)
}

// FixedSetupSteps are the set-up steps whose names do not depend on which
// host paths exist, in order.
var FixedSetupSteps = []string{
	stepUndumpable, stepCloseFiles, stepCheck, stepPrivate, stepRoot, stepProc, stepDev, stepTmp, stepSkill, stepSkillRO,
	stepPivot, stepOldRoot, stepRootRO, stepChdir, stepHostname, stepBounding, stepAmbient,
	stepNoNewPriv, stepCapset, stepExec,
}

// TruncationMarker is the text that ends a cut stream.
var TruncationMarker = truncationMarker
