//go:build !race

package server

// raceEnabled: the tests run under the race detector.
const raceEnabled = false
