package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

func init() {
	commands = append(commands, &command{
		name:    "version",
		summary: "print the version, the commit it was built from and the Go toolchain",
		help: `Prints nlangdbg's version as the Go build information records it: the module
version (a release tag, or a pseudo-version for a build from a checkout), the
source commit and its time (and "modified" for a build with uncommitted
changes), the Go toolchain and the platform.`,
		run: runVersion,
	})
}

func runVersion(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "nlangdbg version: unexpected argument %q\n", args[0])
		return 2
	}
	fmt.Fprintln(stdout, versionString())
	return 0
}

// versionString describes this build, e.g. "nlangdbg v0.4.0 (NLang 0.7 +
// 0.11 concurrency) commit 1a2b3c4d5e6f 2026-12-01T08:00:00Z, go1.24.1
// linux/amd64".
func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(bi)
}

// versionFrom describes the build bi (nil: no build information).
func versionFrom(bi *debug.BuildInfo) string {
	version, commit, when, modified := "(unknown)", "", "", false
	if bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "nlangdbg %s (NLang 0.7 + 0.11 concurrency)", version)
	if commit != "" {
		fmt.Fprintf(&b, " commit %.12s", commit)
		if when != "" {
			b.WriteString(" " + when)
		}
		if modified {
			b.WriteString(" (modified)")
		}
	}
	fmt.Fprintf(&b, ", %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}
