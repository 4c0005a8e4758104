//go:build race

package transport

// raceEnabled is true when the race detector is on: the tests that move
// hundreds of megabytes shrink their inputs, which it slows tenfold.
const raceEnabled = true
