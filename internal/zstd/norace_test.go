//go:build !race

package zstd

const raceEnabled = false
