//go:build race

package sandbox

// largeSeed is the number of payments TestServeLargeSeedAnswers503 seeds:
// fewer under the race detector, where a seed is twenty times slower
// (the gate it tests answers before the seed touches the state either way).
const largeSeed = 400
