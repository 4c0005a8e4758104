//go:build race

package client

// raceEnabled makes flood tests smaller: the race detector slows each
// message about tenfold, and the bound is proven at any size.
const raceEnabled = true
