//go:build race

package replay

// raceEnabled: the race detector makes each replay about ten times
// slower, so the mutation test tries a sample of its changes.
const raceEnabled = true
