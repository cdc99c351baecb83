//go:build unix && !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package main

// keepTypeahead: on this system the terminal keeps its own rule.
func keepTypeahead() {}
