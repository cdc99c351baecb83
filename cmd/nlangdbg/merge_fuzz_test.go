package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/nlangdbg/nlangdbg/sched/explore"
)

// FuzzExploreMerge reads any bytes as the result.json of a shard, as
// explore merge does, and merges it (alone, and with a second shard made
// from it). Any panic fails it; so does a summary that would send the
// terminal anything but text: a control character other than a newline
// (escape sequences start with one), invalid UTF-8, or a text-direction
// control.
func FuzzExploreMerge(f *testing.F) {
	f.Add([]byte(`{"program":"p.n","strategy":"pct","granularity":"shared","depth":3,"seed":0,"shard":0,"shards":2,"schedules":5,"points":9,"seconds":0.1,"failures":[{"kind":"deadlock","place":"mutex at transfer (p.n:19)","message":"in thread 1 \"main\": boom\n  at main (p.n:3)","schedule":1,"hits":2,"preemptions":1,"shrunkPreemptions":1,"decisions":[{"point":4,"thread":2}],"replay":"out/failure-1.replay","shard":0}]}`))
	f.Add([]byte(`{"program":"p\u001b[2J.n","strategy":"dfs","granularity":"sync","depth":2,"shard":1,"shards":2,"schedules":7,"complete":true,"failures":[null]}`))
	f.Add([]byte(`{"strategy":"random","shard":5,"shards":2,"schedules":-2,"failures":[]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := explore.ParseResult(data)
		if err != nil {
			return
		}
		results := [][]*explore.Result{{r}}
		if r.Shards > 1 {
			var other explore.Result
			json.Unmarshal(data, &other) // a second shard: the same exploration, another shard
			other.Shard = (r.Shard + 1) % r.Shards
			results = append(results, []*explore.Result{r, &other})
		}
		for _, rs := range results {
			m, err := explore.Merge(rs)
			if err != nil {
				continue
			}
			var out bytes.Buffer
			printSummary(&out, m, len(rs))
			printJSON(&out, m)
			if !utf8.Valid(out.Bytes()) {
				t.Fatalf("the summary is not UTF-8: %q", out.String())
			}
			for _, c := range out.String() {
				if c != '\n' && unprintable(c) {
					t.Fatalf("the summary holds %U: %q", c, out.String())
				}
			}
		}
	})
}
