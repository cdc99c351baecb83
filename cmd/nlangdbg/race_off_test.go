//go:build !race

package main

// raceOn says that the tests run under the race detector.
const raceOn = false
