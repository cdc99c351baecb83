package inspect

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Logpoints added after the fact: every execution of a line so far,
// where a condition held, with the value of an expression there — what a
// logpoint {expr} with that condition would have printed had it been set
// from the start. The line is placed as a breakpoint is (its statement's
// pcs), its condition and expression compiled once for each pc, read
// only; the stretches of the recording are re-executed side by side.

// QuerySpec is a query: the line Line of File, the expression Expr to
// show at each execution of it where Condition (if any) holds, and at
// most Limit hits (0: DefaultQueryLimit).
type QuerySpec struct {
	File      string
	Line      int
	Expr      string
	Condition string
	Limit     int
}

// DefaultQueryLimit is the most hits a query returns by default.
const DefaultQueryLimit = 1000

// QueryHit is one execution of the queried line: its moment and thread,
// and the expression's value there as a logpoint prints it (Error: why
// it could not be evaluated).
type QueryHit struct {
	Moment     Moment
	ThreadID   int64
	ThreadName string
	Func       string
	Value      string
	Error      string
}

// QueryResult is the answer of a query: the hits in the order they
// happened (the first Limit), and how many there were in all.
type QueryResult struct {
	File  string
	Line  int
	Hits  []QueryHit
	Total int
}

// Query answers q over the recording up to the present. progress, if
// not nil, is told of the stretches re-executed (done of total); a
// cancelled request gives up with ErrCancelled.
func (s *Session) Query(q QuerySpec, progress func(done, total int)) (QueryResult, error) {
	defer s.quiet()() // (catchup.go)
	if err := s.checkPast(); err != nil {
		return QueryResult{}, err
	}
	if strings.TrimSpace(q.Expr) == "" {
		return QueryResult{}, fmt.Errorf("query: no expression to show")
	}
	file, err := s.resolveFile(q.File)
	if err != nil {
		return QueryResult{}, err
	}
	fn, pc, line, ok := s.locate(file, q.Line)
	if q.Line < 1 || !ok || line != q.Line {
		why := fmt.Sprintf("line %d of %s has no code", q.Line, filepath.Base(file))
		if ok && q.Line >= 1 {
			why += fmt.Sprintf(" (the next line with code is %d)", line)
		}
		return QueryResult{}, fmt.Errorf("%s", why)
	}
	b := &bp{file: file, line: line, fn: fn, pc: pc, also: samePosition(fn, pc),
		cond: strings.TrimSpace(q.Condition), logMsg: q.Expr,
		logParts: []logPart{{expr: strings.TrimSpace(q.Expr), at: map[trapKey]*compiled{}}}}
	if b.cond != "" {
		b.conds = map[trapKey]*compiled{}
	}
	for _, p := range append([]int32{b.pc}, b.also...) {
		k := trapKey{fn, p}
		c, err := s.compileAt(fn, p, b.logParts[0].expr)
		if err != nil {
			return QueryResult{}, fmt.Errorf("expression %q: %v", q.Expr, err)
		}
		if c.typ == vm.Void {
			return QueryResult{}, fmt.Errorf("expression %q has no value", q.Expr)
		}
		b.logParts[0].at[k] = c
		if b.cond != "" {
			c, err := s.compileAt(fn, p, b.cond)
			if err != nil {
				return QueryResult{}, fmt.Errorf("condition %q: %v", b.cond, err)
			}
			if c.typ != vm.Bool {
				return QueryResult{}, fmt.Errorf("condition %q is %s, not bool", b.cond, c.typ)
			}
			b.conds[k] = c
		}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultQueryLimit
	}
	res := QueryResult{File: file, Line: line, Hits: []QueryHit{}}
	now := s.present()
	if now.isStart() {
		return res, nil
	}
	var keys []trapKey
	for _, p := range append([]int32{b.pc}, b.also...) {
		keys = append(keys, trapKey{fn, p})
	}
	sts := s.stretches(now, nil)
	err = s.scan(sts, keys, nil, func(int) scanWatch { return &queryWatch{s: s, b: b, limit: limit} },
		func(i int, w scanWatch) bool {
			qw := w.(*queryWatch)
			for _, h := range qw.hits {
				if len(res.Hits) < limit {
					res.Hits = append(res.Hits, s.apiHit(h))
				}
			}
			res.Total += qw.total
			return true
		}, progress)
	if err != nil {
		return QueryResult{}, err
	}
	return res, nil
}

// resolveFile returns the program's file that name names: its path, or
// a name or path suffix only one of the program's files has ("past.n").
func (s *Session) resolveFile(name string) (string, error) {
	canon := canonPath(name)
	var match []string
	seen := map[string]bool{}
	for _, fn := range s.prog.Funcs {
		f := canonPath(fn.File)
		if f == canon {
			return canon, nil
		}
		if !seen[f] && (filepath.Base(f) == name || strings.HasSuffix(f, string(filepath.Separator)+filepath.Clean(name))) {
			seen[f] = true
			match = append(match, f)
		}
	}
	switch len(match) {
	case 0:
		return canon, nil // (then: no code there)
	case 1:
		return match[0], nil
	}
	return "", fmt.Errorf("%s names several files of the program: %s", name, strings.Join(match, ", "))
}

// rawHit is a hit seen by a pass.
type rawHit struct {
	m          moment
	name       string
	value, err string
}

// apiHit is h as Query returns it.
func (s *Session) apiHit(h rawHit) QueryHit {
	return QueryHit{Moment: s.encodeMoment(h.m), ThreadID: h.m.thread, ThreadName: h.name, Func: h.m.fn.Name, Value: h.value, Error: h.err}
}

// queryWatch gathers the hits of a query in one stretch (the first
// limit of them with their values; the others are counted).
type queryWatch struct {
	s     *Session
	b     *bp
	limit int
	hits  []rawHit
	total int
}

func (w *queryWatch) event(sched.Event, *scanPass) {}

func (w *queryWatch) trap(t *vm.Thread, m moment) bool {
	k := trapKey{m.fn, m.pc}
	if w.b.cond != "" {
		held, err := w.s.evalCond(t, w.b, k)
		if err == nil && !held {
			return false
		}
		if err != nil {
			// (as a logpoint whose condition fails: it counts, and says why)
			w.total++
			if len(w.hits) < w.limit {
				w.hits = append(w.hits, rawHit{m: m, name: t.Name(), err: fmt.Sprintf("condition %q failed: %v", w.b.cond, err)})
			}
			return false
		}
	}
	w.total++
	if len(w.hits) >= w.limit {
		return false
	}
	h := rawHit{m: m, name: t.Name()}
	p := w.b.logParts[0]
	c := p.at[k]
	v, err := w.s.run(c, t)
	switch {
	case err != nil:
		h.err = err.Error()
		h.value = fmt.Sprintf("<%s: %v>", p.expr, err)
	case c.typ == vm.String:
		h.value = v.S()
	default:
		h.value = w.s.brief(v, c.typ, 0)
	}
	w.hits = append(w.hits, h)
	return false
}
