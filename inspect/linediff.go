package inspect

import "bytes"

// lineMap maps the lines of one text to the lines of an edited version
// that are the same line (equal text, in a longest common run of lines
// found as patience diff finds it: unique lines anchor the match, the
// stretches between anchors are matched the same way, small stretches
// with no unique line by longest common subsequence). Lines are 1-based.
type lineMap struct {
	fwd map[int32]int32 // old line → new line
	rev map[int32]int32 // new line → old line
}

// diffLines maps old to new.
func diffLines(old, new []byte) *lineMap {
	a, b := splitLines(old), splitLines(new)
	m := &lineMap{fwd: map[int32]int32{}, rev: map[int32]int32{}}
	match := func(i, j int) {
		m.fwd[int32(i+1)] = int32(j + 1)
		m.rev[int32(j+1)] = int32(i + 1)
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
