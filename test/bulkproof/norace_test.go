//go:build !race

package bulkproof

const raceEnabled = false
