//go:build race

package main

// raceOn says that the tests run under the race detector, which makes the
// deepest programs (a million frames) too slow for some tests.
const raceOn = true
