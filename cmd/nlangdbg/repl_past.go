package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nlangdbg/nlangdbg/dap/api"
)

// Questions about the past (one carrier: the session records): last,
// origin, query and timeline ask the server (custom requests of package
// dap/api) and print the answers with the api formatters; each moment
// an answer speaks of is shown as a short name (m1, m2, …) that travel
// takes.

// replMoments names the moments the REPL has shown.
type replMoments struct {
	names map[string]string // moment → "m3"
	byNum []string          // moment of m1, m2, …
}

// label returns the short name of moment m, giving it one if it has
// none.
func (p *replMoments) label(m string) string {
	if m == "" {
		return "-"
	}
	if p.names == nil {
		p.names = map[string]string{}
	}
	if n, ok := p.names[m]; ok {
		return n
	}
	p.byNum = append(p.byNum, m)
	n := "m" + strconv.Itoa(len(p.byNum))
	p.names[m] = n
	return n
}

// moment returns the moment a name the REPL showed stands for (or the
// moment itself, given whole).
func (p *replMoments) moment(name string) (string, error) {
	name = strings.Trim(strings.TrimSpace(name), "[]")
	if rest, ok := strings.CutPrefix(name, "m"); ok {
		if n, err := strconv.Atoi(rest); err == nil {
			if n < 1 || n > len(p.byNum) {
				return "", fmt.Errorf("travel: no moment %s (the answers of last, origin, query and timeline name them)", name)
			}
			return p.byNum[n-1], nil
		}
	}
	if name == "" {
		return "", errors.New("usage: travel MOMENT (an m… of an answer)")
	}
	return name, nil
}

// pastLocation is the selected frame's Location of expr.
func (r *repl) pastLocation(expr string) api.Location {
	return api.Location{Expression: expr, FrameID: r.frameID(), ThreadID: int64(r.thread), Depth: r.frame}
}

// checkPast refuses a question while the program runs or after it ended.
func (r *repl) checkPast(cmd string) error {
	if r.exited {
		return fmt.Errorf("%s: the program is not running (restart it)", cmd)
	}
	if !r.stopped {
		return fmt.Errorf("%s: the program must be stopped", cmd)
	}
	return nil
}

func cmdLast(r *repl, args string) error {
	args = strings.TrimSpace(args)
	if args == "" {
		return errors.New("usage: last EXPR [N]")
	}
	if err := r.checkPast("last"); err != nil {
		return err
	}
	n := 1
	if i := strings.LastIndex(args, " "); i > 0 {
		if k, err := strconv.Atoi(args[i+1:]); err == nil {
			if k < 1 {
				return fmt.Errorf("last: N must be at least 1")
			}
			n, args = k, strings.TrimSpace(args[:i])
		}
	}
	body, err := r.c.callCustom(api.CmdLastWrites, api.LastWritesArgs{Location: r.pastLocation(args), Count: n})
	if err != nil {
		return err
	}
	r.printf("%s\n", api.FormatWrites(body.(api.LastWritesBody), r.past.label))
	return nil
}

func cmdOrigin(r *repl, args string) error {
	args = strings.TrimSpace(args)
	if args == "" {
		return errors.New("usage: origin EXPR")
	}
	if err := r.checkPast("origin"); err != nil {
		return err
	}
	body, err := r.c.callCustom(api.CmdOrigin, api.OriginArgs{Location: r.pastLocation(args)})
	if err != nil {
		return err
	}
	r.printf("%s\n", api.FormatOrigin(body.(api.OriginBody), r.past.label))
	return nil
}

func cmdQuery(r *repl, args string) error {
	args = strings.TrimSpace(args)
	if err := r.checkPast("query"); err != nil {
		return err
	}
	// LINE alone: in the current file
	if loc, rest, _ := strings.Cut(args, " "); loc != "" && !strings.Contains(loc, ":") {
		if _, err := strconv.Atoi(loc); err == nil && r.file != "" {
			args = r.file + ":" + loc + " " + rest
		}
	}
	a, err := api.ParseQuery(args)
	if err != nil {
		return err
	}
	p, ok, err := r.findFile(a.Source.Path)
	if err != nil {
		return err // (a name several of the program's files have)
	}
	if ok {
		a.Source.Path = p
	}
	body, err := r.c.callCustom(api.CmdQuery, a)
	if err != nil {
		return err
	}
	r.printf("%s\n", api.FormatQuery(body.(api.QueryBody), r.past.label))
	return nil
}

func cmdTimeline(r *repl, args string) error {
	if err := r.checkPast("timeline"); err != nil {
		return err
	}
	a := api.TimelineArgs{ThreadID: int64(r.thread)}
	if f := strings.Fields(args); len(f) > 0 {
		id, err := api.ParseThreadID(f[0])
		if err != nil {
			return err
		}
		a.ThreadID = id
	}
	body, err := r.c.callCustom(api.CmdTimeline, a)
	if err != nil {
		return err
	}
	r.printf("%s\n", api.FormatTimeline(body.(api.TimelineBody), r.past.label))
	return nil
}

func cmdTravel(r *repl, args string) error {
	if err := r.checkPast("travel"); err != nil {
		return err
	}
	m, err := r.past.moment(args)
	if err != nil {
		return err
	}
	return r.moveCustom(api.CmdTravel, api.TravelArgs{Moment: m})
}
