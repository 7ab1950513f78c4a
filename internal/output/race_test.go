//go:build race

package output

// The race detector allocates on its own account.
const raceEnabled = true
