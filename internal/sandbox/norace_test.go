//go:build !race

package sandbox

// largeSeed is the number of payments TestServeLargeSeedAnswers503 seeds.
const largeSeed = 4000
