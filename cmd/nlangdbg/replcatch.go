package main

import (
	"errors"
	"fmt"
	"strings"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// catchSetting is which thrown exceptions stop the program: those no
// catch will handle (uncaught), every one thrown (thrown), each limited
// to some classes (with their subclasses) or not. The REPL starts with
// uncaught ones, of every class.
type catchSetting struct {
	uncaught, thrown bool
	uncClasses       []string
	thrownClasses    []string
}

var defaultCatch = catchSetting{uncaught: true}

// request is the setExceptionBreakpoints request of the setting: a
// filter limited to classes is a filter option whose condition names
// them.
func (c catchSetting) request() *dap.SetExceptionBreakpointsRequest {
	req := &dap.SetExceptionBreakpointsRequest{Request: request("setExceptionBreakpoints")}
	req.Arguments.Filters = []string{}
	add := func(on bool, filter string, classes []string) {
		switch {
		case !on:
		case len(classes) == 0:
			req.Arguments.Filters = append(req.Arguments.Filters, filter)
		default:
			req.Arguments.FilterOptions = append(req.Arguments.FilterOptions,
				dap.ExceptionFilterOptions{FilterId: filter, Condition: strings.Join(classes, ", ")})
		}
	}
	add(c.uncaught, "uncaught", c.uncClasses)
	add(c.thrown, "all", c.thrownClasses)
	return req
}

func (c catchSetting) String() string {
	what := func(classes []string) string {
		if len(classes) == 0 {
			return "an exception"
		}
		return strings.Join(classes, " or ") + " (or a subclass)"
	}
	var parts []string
	if c.thrown {
		parts = append(parts, "wherever "+what(c.thrownClasses)+" is thrown, caught or not")
	}
	if c.uncaught && !(c.thrown && len(c.thrownClasses) == 0) {
		parts = append(parts, "where "+what(c.uncClasses)+" is thrown that no catch handles")
	}
	if len(parts) == 0 {
		return "No exception stops the program (an uncaught one ends it)."
	}
	return "Stops " + strings.Join(parts, ", and ") + "."
}

// cmdCatch shows or changes which exceptions stop the program:
// catch throw [CLASSES|off], catch uncaught [CLASSES|off], catch off.
func cmdCatch(r *repl, args string) error {
	f := inspect.ParseClassList(args) // (the words, and the classes as the adapter reads them)
	if len(f) == 0 {
		r.printf("%s\n", r.catch)
		return nil
	}
	next := r.catch
	rest := f[1:]
	off := len(rest) == 1 && rest[0] == "off"
	switch f[0] {
	case "throw", "thrown", "all":
		next.thrown, next.thrownClasses = !off, nil
		if !off {
			next.thrownClasses = rest
		}
	case "uncaught":
		next.uncaught, next.uncClasses = !off, nil
		if !off {
			next.uncClasses = rest
		}
	case "off", "none":
		if len(rest) > 0 {
			return fmt.Errorf("catch off takes no classes (got %q)", strings.Join(rest, " "))
		}
		next = catchSetting{}
	default:
		return fmt.Errorf("catch: %q is not throw, uncaught or off (usage: catch [throw|uncaught [CLASSES|off]] | off)", f[0])
	}
	resp, err := r.c.call(next.request())
	if err != nil {
		return err
	}
	for _, b := range resp.(*dap.SetExceptionBreakpointsResponse).Body.Breakpoints {
		if !b.Verified {
			return errors.New("catch: " + b.Message)
		}
	}
	r.catch = next
	r.printf("%s\n", r.catch)
	return nil
}
