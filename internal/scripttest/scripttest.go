// Package scripttest reads the expectations embedded in testdata NLang
// scripts (see testdata/README.md) and compares them with a run.
package scripttest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Script is one test program with its expectations.
type Script struct {
	Name   string
	Src    []byte
	Stdout string
	// HasWant reports whether the script has a want block.
	HasWant bool
	Exit    int
	Stderr  []*regexp.Regexp
	// Errors are the expected compile errors: line → regexp.
	Errors map[int]*regexp.Regexp
	Args   []string
	Stdin  string
	Quota  int
	Seed   int64
}

var errRE = regexp.MustCompile(`//\s*###\s*"((?:[^"\\]|\\.)*)"`)

// Parse reads a script's expectations.
func Parse(name string, src []byte) (*Script, error) {
	s := &Script{Name: name, Src: src, Errors: map[int]*regexp.Regexp{}}
	text := string(src)
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "/* want:"):
			var body []string
			rest := strings.TrimSpace(strings.TrimPrefix(trim, "/* want:"))
			if rest != "" {
				return nil, fmt.Errorf("%s:%d: text after /* want: must start on the next line", name, i+1)
			}
			i++
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != "*/"; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				return nil, fmt.Errorf("%s: unterminated want block", name)
			}
			s.HasWant = true
			s.Stdout = strings.Join(body, "\n")
			if len(body) > 0 {
				s.Stdout += "\n"
			}
		case strings.HasPrefix(trim, "/* stdin:"):
			var body []string
			i++
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != "*/"; i++ {
				body = append(body, lines[i])
			}
			s.Stdin = strings.Join(body, "\n")
			if len(body) > 0 {
				s.Stdin += "\n"
			}
		case strings.HasPrefix(trim, "// exit:"):
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(trim, "// exit:")))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: bad exit directive", name, i+1)
			}
			s.Exit = n
		case strings.HasPrefix(trim, "// stderr:"):
			re, err := regexp.Compile("(?m)" + strings.TrimSpace(strings.TrimPrefix(trim, "// stderr:")))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, i+1, err)
			}
			s.Stderr = append(s.Stderr, re)
		case strings.HasPrefix(trim, "// args:"):
			s.Args = strings.Fields(strings.TrimPrefix(trim, "// args:"))
		case strings.HasPrefix(trim, "// quota:"):
			s.Quota, _ = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(trim, "// quota:")))
		case strings.HasPrefix(trim, "// seed:"):
			s.Seed, _ = strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(trim, "// seed:")), 10, 64)
		}
		if m := errRE.FindStringSubmatch(line); m != nil && !strings.HasPrefix(trim, "//") {
			pat := strings.ReplaceAll(m[1], `\"`, `"`)
			re, err := regexp.Compile(pat)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, i+1, err)
			}
			s.Errors[i+1] = re
		}
	}
	if len(s.Errors) > 0 {
		s.Exit = 1
	}
	return s, nil
}

// Result is what a run produced.
type Result struct {
	Stdout, Stderr string
	Exit           int
}

var posRE = regexp.MustCompile(`(?m)^[^\s:]+:(\d+):(\d+): (.*)$`)

// Check compares a result with the script's expectations and returns the
// differences (empty if none).
func (s *Script) Check(r Result) []string {
	var diffs []string
	if len(s.Errors) > 0 {
		seen := map[int]bool{}
		for _, m := range posRE.FindAllStringSubmatch(r.Stderr, -1) {
			line, _ := strconv.Atoi(m[1])
			re, ok := s.Errors[line]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s:%d: unexpected error: %s", s.Name, line, m[3]))
				continue
			}
			if !re.MatchString(m[3]) {
				diffs = append(diffs, fmt.Sprintf("%s:%d: error %q does not match %q", s.Name, line, m[3], re))
				continue
			}
			seen[line] = true
		}
		for line, re := range s.Errors {
			if !seen[line] {
				diffs = append(diffs, fmt.Sprintf("%s:%d: missing error matching %q", s.Name, line, re))
			}
		}
		if r.Exit != 1 {
			diffs = append(diffs, fmt.Sprintf("%s: exit code %d, want 1", s.Name, r.Exit))
		}
		return diffs
	}
	if r.Stdout != s.Stdout {
		diffs = append(diffs, fmt.Sprintf("%s: stdout:\n%s\nwant:\n%s\n%s", s.Name, r.Stdout, s.Stdout, firstDiff(r.Stdout, s.Stdout)))
	}
	if r.Exit != s.Exit {
		diffs = append(diffs, fmt.Sprintf("%s: exit code %d, want %d (stderr: %s)", s.Name, r.Exit, s.Exit, r.Stderr))
	}
	if len(s.Stderr) == 0 && r.Stderr != "" {
		diffs = append(diffs, fmt.Sprintf("%s: unexpected stderr:\n%s", s.Name, r.Stderr))
	}
	for _, re := range s.Stderr {
		if !re.MatchString(r.Stderr) {
			diffs = append(diffs, fmt.Sprintf("%s: stderr does not match %q:\n%s", s.Name, re, r.Stderr))
		}
	}
	return diffs
}

func firstDiff(got, want string) string {
	g := strings.Split(got, "\n")
	w := strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("first difference at line %d: got %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}
