package dap

// The concurrency views: threads filtered and as a spawn tree, thread
// groups, leaked threads (package inspect's views.go does the work).

import (
	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// apiThread is a thread as the custom requests show it.
func (c *session) apiThread(t inspect.ThreadInfo) api.Thread {
	th := api.Thread{ID: t.ID, Name: t.Name, State: t.State, WaitReason: t.WaitReason, Function: t.Func, Line: t.Line, Stopped: t.Stopped, Held: t.Held,
		Parent: t.Parent, SpawnedAt: c.place(t.Spawn)}
	if t.File != "" {
		th.Source = c.source(t.File)
	}
	return th
}

// place returns p as the custom requests show it (nil if unknown).
func (c *session) place(p inspect.Place) *api.Place {
	if !p.Known() {
		return nil
	}
	return &api.Place{Source: c.source(p.File), Line: p.Line}
}

// threadFilter turns ThreadsArgs into the session's filter.
func threadFilter(a api.ThreadsArgs) inspect.ThreadFilter {
	f := inspect.ThreadFilter{State: a.State, Func: a.Function}
	for _, w := range a.With {
		f.With = append(f.With, inspect.Filter{Key: w.Key, Value: w.Value, Not: w.Not})
	}
	return f
}

// selectThreads returns the threads a ThreadsArgs selects, and the total.
func (c *session) selectThreads(a api.ThreadsArgs) ([]inspect.ThreadInfo, int, error) {
	sel, total, err := c.prog.SelectThreads(threadFilter(a))
	if err != nil {
		return nil, 0, badArgs(err)
	}
	return sel, total, nil
}

// badArgs marks an error of the arguments (an unknown key) as such.
func badArgs(err error) error {
	if err == inspect.ErrRunning || err == inspect.ErrNotRunning || err == inspect.ErrCancelled {
		return err
	}
	return &reqError{errBadArguments, err.Error()}
}

// threadsBody answers api.CmdThreads.
func (c *session) threadsBody(a api.ThreadsArgs) (any, error) {
	sel, total, err := c.selectThreads(a)
	if err != nil {
		return nil, err
	}
	b := api.ThreadsBody{Threads: []api.Thread{}, Total: total}
	for _, t := range sel {
		b.Threads = append(b.Threads, c.apiThread(t))
	}
	return b, nil
}

// threadGroups answers api.CmdThreadGroups: the groups by count, then
// key.
func (c *session) threadGroups(a api.ThreadGroupsArgs) (any, error) {
	groups, sel, total, err := c.prog.ThreadGroups(a.By, threadFilter(a.ThreadsArgs))
	if err != nil {
		return nil, badArgs(err)
	}
	b := api.ThreadGroupsBody{Groups: []api.ThreadGroup{}, Selected: sel, Total: total}
	for _, g := range groups {
		ag := api.ThreadGroup{Key: g.Key, Count: g.Count, ThreadIDs: g.IDs}
		for _, f := range g.Stack {
			ag.Stack = append(ag.Stack, api.Frame{Function: f.Func, Source: c.source(f.File), Line: f.Line})
		}
		b.Groups = append(b.Groups, ag)
	}
	return b, nil
}

// leaksBody answers api.CmdLeaks.
func (c *session) leaksBody(a api.LeaksArgs) (any, error) {
	ls, err := c.prog.Leaks(a.Stack)
	if err != nil {
		return nil, err
	}
	b := api.LeaksBody{Threads: []api.LeakedThread{}}
	if _, total, err := c.prog.ThreadsPage(0, nil); err == nil {
		b.Total = total
	}
	for _, l := range ls {
		t := l.Thread
		lt := api.LeakedThread{ID: t.ID, Name: t.Name, WaitReason: t.WaitReason, WaitingOn: t.WaitReason + " on " + l.WaitingOn,
			ObjectMadeAt: c.place(l.ObjectMadeAt), Parent: t.Parent, SpawnedAt: c.place(t.Spawn), Function: t.Func, Line: t.Line}
		if t.File != "" {
			lt.Source = c.source(t.File)
		}
		for _, f := range l.Stack {
			lt.Stack = append(lt.Stack, api.Frame{Function: f.Func, Source: c.source(f.File), Line: f.Line})
		}
		b.Threads = append(b.Threads, lt)
	}
	return b, nil
}
