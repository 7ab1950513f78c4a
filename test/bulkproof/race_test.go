//go:build race

package bulkproof

// raceEnabled builds the binary under test with -race as well, so the bulk
// workers' concurrency is checked while the faults hit them.
const raceEnabled = true
