package sandbox

import "runtime/debug"

// A serving sandbox keeps little alive (a few MiB: the record cache, the
// connections' buffers) and allocates a request's bodies and answers as
// it goes, so with Go's default of collecting once the heap has doubled it
// collects dozens of times a second under load, about a tenth of its CPU
// (docs/benchmarks.md). Collecting once the heap has grown ninefold
// spends that on requests instead; the memory limit keeps the heap that
// this lets grow well within a container's.
const (
	servingGCPercent = 800
	servingMemLimit  = 512 << 20
)

// ServingGC sets the collector for a process that serves the sandbox and
// answers the function that puts the settings back. A GOGC or
// GOMEMLIMIT in the environment (getenv) is the user's choice and is
// left as it is.
func ServingGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(servingGCPercent)
	limit := debug.SetMemoryLimit(servingMemLimit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}
