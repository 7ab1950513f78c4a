package sandbox

import "runtime"

// A serving sandbox's writer and checkpointer wait on the disk inside
// system calls: an fsync of the state file or its WAL at each checkpoint
// takes milliseconds (2 ms typically, 7 ms at worst, under reads on the
// project's machine). Go gives the processor (P) of a goroutine blocked
// in a system call to another thread only when its monitor next looks,
// and in a process that has long been busy the monitor looks every
// 10 ms: until then the requests run on one P fewer, half of them with
// two. That was most of a read's p99 under load: 16–19 ms against a bare
// net/http server's 8–10 ms under `wrk -t2 -c32`, and 7–9 ms with one P
// more than Go's default, at the same rates, for writes too
// (docs/benchmarks.md).
const extraServingProcs = 1

// ServingProcs gives a process that serves the sandbox one P more than
// Go's default and answers the function that puts the default back. A
// GOMAXPROCS in the environment (getenv) is the user's choice and is left
// as it is.
func ServingProcs(getenv func(string) string) (restore func()) {
	if getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + extraServingProcs)
	return runtime.SetDefaultGOMAXPROCS
}
