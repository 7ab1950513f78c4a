//go:build race

package zstd

// Under the race detector the encoder that makes the test inputs runs ten
// times slower; the decoder is one goroutine, so fewer inputs lose nothing.
const raceEnabled = true
