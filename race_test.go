//go:build race

package main

// raceEnabled is true when the race detector is on. The mcpctl the scripts
// run is then this test binary with the detector's shadow memory, so
// memory figures say nothing about a real mcpctl.
const raceEnabled = true
