//go:build !unix

package gen

import "time"

// cpuTime is unknown here.
func cpuTime() time.Duration { return 0 }
