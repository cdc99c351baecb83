package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// The language guide docs/language.md marks its examples in the info
// string of each fenced block:
//
//	```nlang run          a whole program; it is run and checked
//	```nlang run exit=N   the same, main's exit code is N (default 0)
//	```nlang error        a whole program that must fail to compile
//	```nlang file=PATH    another source file of the next program (imports)
//	```output             what the program above prints on stdout
//	                      (for `error`: what the compiler prints on stderr)
//	```stderr             what the program above prints on stderr
//	```stdin              what the program above reads on stdin
//
// A plain ```nlang block is a fragment and is not run. In expected
// output, the program's file is called example.n.

const languageDoc = "../../docs/language.md"

// docBlock is one fenced block of the guide.
type docBlock struct {
	line int    // line of the opening fence
	info string // the info string: "nlang run", "output", …
	body string // the text, each line ending in a newline
}

// docBlocks returns the fenced blocks of a Markdown text.
func docBlocks(text string) ([]docBlock, error) {
	var blocks []docBlock
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		fence, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		b := docBlock{line: i + 1, info: strings.TrimSpace(fence)}
		var body strings.Builder
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body.WriteString(lines[i] + "\n")
		}
		if i == len(lines) {
			return nil, fmt.Errorf("line %d: unterminated code block", b.line)
		}
		b.body = body.String()
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// docExample is one program of the guide with its expectations.
type docExample struct {
	line      int
	src       string
	compile   bool // the program must fail to compile
	exit      int
	files     map[string]string // other source files, by path
	stdin     string
	stdout    string
	hasOutput bool
	stderr    string
}

// docExamples groups the blocks of the guide into examples.
func docExamples(blocks []docBlock) ([]*docExample, error) {
	var out []*docExample
	var cur *docExample
	files := map[string]string{}
	for _, b := range blocks {
		words := strings.Fields(b.info)
		if len(words) == 0 {
			continue
		}
		switch words[0] {
		case "nlang":
			cur = nil
			if len(words) == 1 {
				continue // a fragment
			}
			switch {
			case words[1] == "run" || words[1] == "error":
				cur = &docExample{line: b.line, src: b.body, compile: words[1] == "error", files: files}
				files = map[string]string{}
				for _, w := range words[2:] {
					v, ok := strings.CutPrefix(w, "exit=")
					n, err := strconv.Atoi(v)
					if !ok || err != nil {
						return nil, fmt.Errorf("line %d: unknown attribute %q", b.line, w)
					}
					cur.exit = n
				}
				out = append(out, cur)
			case strings.HasPrefix(words[1], "file="):
				files[strings.TrimPrefix(words[1], "file=")] = b.body
			default:
				return nil, fmt.Errorf("line %d: unknown example kind %q", b.line, b.info)
			}
		case "output", "stderr", "stdin":
			if cur == nil {
				return nil, fmt.Errorf("line %d: %s block without a program before it", b.line, words[0])
			}
			switch words[0] {
			case "output":
				cur.stdout, cur.hasOutput = b.body, true
			case "stderr":
				cur.stderr = b.body
			case "stdin":
				cur.stdin = b.body
			}
		default:
			cur = nil
		}
	}
	return out, nil
}

// TestLanguageDoc runs every example of docs/language.md and checks what
// it prints, so that the guide says what nlangdbg does.
func TestLanguageDoc(t *testing.T) {
	text, err := os.ReadFile(languageDoc)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := docBlocks(string(text))
	if err != nil {
		t.Fatalf("%s: %v", languageDoc, err)
	}
	examples, err := docExamples(blocks)
	if err != nil {
		t.Fatalf("%s: %v", languageDoc, err)
	}
	if len(examples) < 40 {
		t.Fatalf("%s has %d runnable examples, want at least 40", languageDoc, len(examples))
	}
	for _, ex := range examples {
		t.Run(fmt.Sprintf("line%d", ex.line), func(t *testing.T) {
			where := fmt.Sprintf("%s:%d", languageDoc, ex.line)
			if !ex.hasOutput {
				t.Fatalf("%s: example has no output block", where)
			}
			// each example runs in a directory of its own (the file
			// system examples create files there), so not in parallel
			dir := t.TempDir()
			t.Chdir(dir)
			for name, src := range ex.files {
				p := filepath.FromSlash(name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// (outside the full run the frame budget is smaller: the
			// example that overflows the stack reaches it sooner, with
			// the same output)
			frames := 100_000
			if testmode.Full() {
				frames = 0 // the default
			}
			for _, q := range []int{1, 4000} {
				var stdout, stderr bytes.Buffer
				code := runProgram("example.n", []byte(ex.src), runOptions{Quota: q, MaxFrames: frames}, strings.NewReader(ex.stdin), &stdout, &stderr)
				errText := stderr.String()
				if ex.compile {
					if code != 1 || stdout.Len() > 0 {
						t.Errorf("%s: want a compile error, got exit %d, stdout %q", where, code, stdout.String())
					}
					if errText != ex.stdout {
						t.Errorf("%s: compiler output:\n%s\nwant:\n%s", where, errText, ex.stdout)
					}
					return
				}
				if code != ex.exit {
					t.Errorf("%s (quota %d): exit %d, want %d; stderr:\n%s", where, q, code, ex.exit, errText)
				}
				if stdout.String() != ex.stdout {
					t.Errorf("%s (quota %d): stdout:\n%s\nwant:\n%s", where, q, stdout.String(), ex.stdout)
				}
				if errText != ex.stderr {
					t.Errorf("%s (quota %d): stderr:\n%s\nwant:\n%s", where, q, errText, ex.stderr)
				}
			}
		})
	}
}

// TestLanguageDocBlocks checks the block reader on a small guide.
func TestLanguageDocBlocks(t *testing.T) {
	md := "text\n```nlang\nfragment\n```\n```nlang file=lib/a.n\nint f() { return 1; }\n```\n" +
		"```nlang run exit=3\nint main() { return 3; }\n```\n```output\nhi\n```\n```stdin\nin\n```\n" +
		"```nlang error\nint main() { x; }\n```\n```output\nbad\n```\n"
	blocks, err := docBlocks(md)
	if err != nil {
		t.Fatal(err)
	}
	exs, err := docExamples(blocks)
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 2 {
		t.Fatalf("got %d examples, want 2", len(exs))
	}
	a, b := exs[0], exs[1]
	if a.exit != 3 || a.stdout != "hi\n" || a.stdin != "in\n" || a.compile || a.files["lib/a.n"] != "int f() { return 1; }\n" {
		t.Errorf("first example: %+v", a)
	}
	if !b.compile || b.stdout != "bad\n" || len(b.files) != 0 {
		t.Errorf("second example: %+v", b)
	}
	for _, bad := range []string{"```nlang run\nx\n", "```output\nx\n```\n", "```nlang run fast\nx\n```\n", "```nlang compile\nx\n```\n"} {
		blocks, err := docBlocks(bad)
		if err == nil {
			_, err = docExamples(blocks)
		}
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
