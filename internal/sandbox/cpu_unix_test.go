//go:build unix

package sandbox

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time the process has spent so far, user and
// system.
func processCPU(b *testing.B) (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
