package main

import (
	"bytes"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := doMain([]string{"version"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("version: exit %d: %s", code, errOut.String())
	}
	re := regexp.MustCompile(`^nlangdbg \S+ \(NLang 0\.7 \+ 0\.11 concurrency\)( commit [0-9a-f]{12}[^,]*)?, ` +
		regexp.QuoteMeta(runtime.Version()) + ` \w+/\w+\n$`)
	if !re.MatchString(out.String()) {
		t.Errorf("version printed %q", out.String())
	}
	var again bytes.Buffer
	doMain([]string{"--version"}, nil, &again, &errOut)
	if again.String() != out.String() {
		t.Errorf("--version %q differs from version %q", again.String(), out.String())
	}
	if code := doMain([]string{"version", "x"}, nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `unexpected argument "x"`) {
		t.Errorf("version x: exit %d, %q", code, errOut.String())
	}
}

func TestVersionFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v0.4.1-0.20261201080000-1a2b3c4d5e6f+dirty"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d"},
		{Key: "vcs.time", Value: "2026-12-01T08:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	want := "nlangdbg v0.4.1-0.20261201080000-1a2b3c4d5e6f+dirty (NLang 0.7 + 0.11 concurrency) commit 1a2b3c4d5e6f 2026-12-01T08:00:00Z (modified), " +
		runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	if got := versionFrom(bi); got != want {
		t.Errorf("versionFrom = %q\nwant          %q", got, want)
	}
	if got := versionFrom(nil); !strings.HasPrefix(got, "nlangdbg (unknown) ") {
		t.Errorf("without build info: %q", got)
	}
}
