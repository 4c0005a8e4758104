//go:build !race

package client

// raceEnabled makes flood tests smaller under the race detector.
const raceEnabled = false
