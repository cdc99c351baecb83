package inspect

import "bytes"

// lineMap maps the lines of one text to the lines of an edited version
// that are the same line (equal text, in a longest common run of lines
// found as patience diff finds it: unique lines anchor the match, the
// stretches between anchors are matched the same way, small stretches
// with no unique line by longest common subsequence). Lines are 1-based.
type lineMap struct {
	fwd, rev, edit []int32 // indexed by line; 0: none
}

// forward returns the new line of old line l, if it is unchanged.
func (m *lineMap) forward(l int32) (int32, bool) { return at(m.fwd, l) }

// back returns the old line of new line l, if it is unchanged.
func (m *lineMap) back(l int32) (int32, bool) { return at(m.rev, l) }

func at(s []int32, l int32) (int32, bool) {
	if l < 1 || int(l) >= len(s) || s[l] == 0 {
		return 0, false
	}
	return s[l], true
}

// diffLines maps old to new.
func diffLines(old, new []byte) *lineMap {
	a, b := splitLines(old), splitLines(new)
	m := &lineMap{fwd: make([]int32, len(a)+1), rev: make([]int32, len(b)+1), edit: make([]int32, len(a)+1)}
	match := func(i, j int) {
		m.fwd[i+1] = int32(j + 1)
		m.rev[j+1] = int32(i + 1)
	}
	var walk func(a0, a1, b0, b1 int)
	walk = func(a0, a1, b0, b1 int) {
		for a0 < a1 && b0 < b1 && bytes.Equal(a[a0], b[b0]) {
			match(a0, b0)
			a0, b0 = a0+1, b0+1
		}
		for a0 < a1 && b0 < b1 && bytes.Equal(a[a1-1], b[b1-1]) {
			match(a1-1, b1-1)
			a1, b1 = a1-1, b1-1
		}
		if a0 == a1 || b0 == b1 {
			return
		}
		anchors := uniqueAnchors(a[a0:a1], b[b0:b1])
		if len(anchors) == 0 {
			if (a1-a0)*(b1-b0) <= 1<<20 {
				for _, p := range lcs(a[a0:a1], b[b0:b1]) {
					match(a0+p[0], b0+p[1])
				}
			}
			return
		}
		pa, pb := a0, b0
		for _, p := range anchors {
			walk(pa, a0+p[0], pb, b0+p[1])
			match(a0+p[0], b0+p[1])
			pa, pb = a0+p[0]+1, b0+p[1]+1
		}
		walk(pa, a1, pb, b1)
	}
	walk(0, len(a), 0, len(b))
	m.pairEdits(a, b)
	return m
}

func splitLines(text []byte) [][]byte {
	lines := bytes.Split(text, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte("\r"))
	}
	return lines
}

// uniqueAnchors returns the pairs (i, j) of lines unique in a and in b
// with a[i] == b[j], the longest run of them increasing in both.
func uniqueAnchors(a, b [][]byte) [][2]int {
	type seen struct{ na, nb, ia, ib int }
	count := map[string]*seen{}
	for i, l := range a {
		s := count[string(l)]
		if s == nil {
			s = &seen{}
			count[string(l)] = s
		}
		s.na++
		s.ia = i
	}
	for j, l := range b {
		if s := count[string(l)]; s != nil {
			s.nb++
			s.ib = j
		}
	}
	var pairs [][2]int
	for j, l := range b {
		if s := count[string(l)]; s != nil && s.na == 1 && s.nb == 1 && s.ib == j {
			pairs = append(pairs, [2]int{s.ia, j})
		}
	}
	// longest increasing subsequence of the pairs' a-indexes (they are
	// in b order)
	tails := []int{} // index into pairs of the smallest tail of each length
	prev := make([]int, len(pairs))
	for k, p := range pairs {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if pairs[tails[mid]][0] < p[0] {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		prev[k] = -1
		if lo > 0 {
			prev[k] = tails[lo-1]
		}
		if lo == len(tails) {
			tails = append(tails, k)
		} else {
			tails[lo] = k
		}
	}
	out := make([][2]int, len(tails))
	for k, i := len(tails)-1, -1; k >= 0; k-- {
		if i < 0 {
			i = tails[len(tails)-1]
		}
		out[k] = pairs[i]
		i = prev[i]
	}
	return out
}

// lcs returns the pairs of a longest common subsequence of a and b.
func lcs(a, b [][]byte) [][2]int {
	n, m := len(a), len(b)
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if bytes.Equal(a[i], b[j]) {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case bytes.Equal(a[i], b[j]):
			out = append(out, [2]int{i, j})
			i, j = i+1, j+1
		case dp[i+1][j] >= dp[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// near maps an old line to the new text even where the line itself was
// edited, as an editor keeps a breakpoint on a line being edited: in a
// stretch of edited lines replaced by as many lines, a line goes to the
// one at its place; otherwise to the most similar of the new stretch
// (in order; false if none is similar: the line was deleted).
func (m *lineMap) near(line int32) (int32, bool) {
	if l, ok := at(m.fwd, line); ok {
		return l, true
	}
	return at(m.edit, line)
}

// pairEdits fills m.edit for the stretches of unmatched lines of a and
// b (see near).
func (m *lineMap) pairEdits(a, b [][]byte) {
	prevO, prevN := int32(0), int32(0)
	stretch := func(nextO, nextN int32) {
		o0, o1, n0, n1 := prevO+1, nextO-1, prevN+1, nextN-1 // inclusive, 1-based
		if o1 < o0 || n1 < n0 {
			return
		}
		if o1-o0 == n1-n0 {
			for k := int32(0); k <= o1-o0; k++ {
				m.edit[o0+k] = n0 + k
			}
			return
		}
		// the most similar pairs, in order (a small dynamic programme)
		no, nn := int(o1-o0+1), int(n1-n0+1)
		if no*nn > 1<<16 {
			return
		}
		score := make([][]int, no+1)
		for i := range score {
			score[i] = make([]int, nn+1)
		}
		sim := func(i, j int) int { return similarity(a[int(o0)-1+i], b[int(n0)-1+j]) }
		for i := no - 1; i >= 0; i-- {
			for j := nn - 1; j >= 0; j-- {
				best := max(score[i+1][j], score[i][j+1])
				if s := sim(i, j); s > 0 {
					best = max(best, score[i+1][j+1]+s)
				}
				score[i][j] = best
			}
		}
		for i, j := 0, 0; i < no && j < nn; {
			switch s := sim(i, j); {
			case s > 0 && score[i][j] == score[i+1][j+1]+s:
				m.edit[o0+int32(i)] = n0 + int32(j)
				i, j = i+1, j+1
			case score[i+1][j] >= score[i][j+1]:
				i++
			default:
				j++
			}
		}
	}
	for o := int32(1); int(o) < len(m.fwd); o++ {
		if n := m.fwd[o]; n != 0 {
			stretch(o, n)
			prevO, prevN = o, n
		}
	}
	stretch(int32(len(a))+1, int32(len(b))+1)
}

// similarity scores how alike two edited lines are: the characters they
// share at their start and end (indentation aside), 0 if that is less
// than a third of the shorter.
func similarity(x, y []byte) int {
	x, y = bytes.TrimSpace(x), bytes.TrimSpace(y)
	n := min(len(x), len(y))
	p := 0
	for p < n && x[p] == y[p] {
		p++
	}
	q := 0
	for q < n-p && x[len(x)-1-q] == y[len(y)-1-q] {
		q++
	}
	if n == 0 || 3*(p+q) < n {
		return 0
	}
	return p + q
}
