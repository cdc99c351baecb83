package inspect

import (
	"fmt"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
)

// ExceptionFilter is an exception breakpoint filter with a condition:
// Mode "uncaught" or "all", and the classes it is limited to (each with
// its subclasses; none: every class).
type ExceptionFilter struct {
	Mode    string
	Classes []string
	// StopMode is the breakpoint mode of its stops: ModeAll, ModeThread
	// or "" (the session's).
	StopMode string
}

// ExceptionOption is a DAP exceptionOptions entry: for exceptions of the
// classes (and subclasses), break "always", when "unhandled" (or
// "userUnhandled": the same here), or "never".
type ExceptionOption struct {
	Classes []string
	Mode    string
}

// excRules is the compiled form of the filters and options. An option
// that matches a thrown exception's class decides (the first that
// matches); otherwise the filters do (any that matches stops).
type excRules struct {
	filters []excRule
	options []excRule
}

type excRule struct {
	mode    string // "always", "unhandled", "never"
	classes []*vm.Class
	stop    string // the breakpoint mode of its stops ("": the session's)
}

func (r excRule) matches(c *vm.Class) bool {
	if len(r.classes) == 0 {
		return true
	}
	for _, k := range r.classes {
		if c.IsSubclassOf(k) {
			return true
		}
	}
	return false
}

// mode returns how a throw of an exception of class c stops ("always",
// "unhandled", or "" for no stop), and the breakpoint mode of the stop.
func (r *excRules) mode(c *vm.Class, caught bool) (string, string) {
	decide := func(m string) string {
		switch {
		case m == "always":
			return "always"
		case m == "unhandled" && !caught:
			return "unhandled"
		}
		return ""
	}
	for _, o := range r.options {
		if o.matches(c) {
			return decide(o.mode), ""
		}
	}
	for _, f := range r.filters {
		if f.matches(c) {
			if m := decide(f.mode); m != "" {
				return m, f.stop
			}
		}
	}
	return "", ""
}

// SetExceptionFilters selects exception stops by filters limited to
// classes, and by exception options. A class name that is not an
// exception class of the program is an error (the previous settings
// stay). ParseClassList splits a DAP filter condition.
func (s *Session) SetExceptionFilters(filters []ExceptionFilter, options []ExceptionOption) error {
	defer s.quiet()() // (catchup.go)
	r := &excRules{}
	resolve := func(names []string) ([]*vm.Class, error) {
		var out []*vm.Class
		exc := s.prog.ClassByName("Exception")
		for _, n := range names {
			c := s.prog.ClassByName(n)
			if c == nil {
				return nil, fmt.Errorf("no class %s", n)
			}
			if exc != nil && !c.IsSubclassOf(exc) {
				return nil, fmt.Errorf("%s is not an exception class (it does not derive from Exception)", n)
			}
			out = append(out, c)
		}
		return out, nil
	}
	for _, f := range filters {
		cs, err := resolve(f.Classes)
		if err != nil {
			return err
		}
		mode := "always"
		switch f.Mode {
		case "uncaught":
			mode = "unhandled"
		case "all":
		default:
			return fmt.Errorf("unknown exception filter %q (want uncaught or all)", f.Mode)
		}
		if err := checkMode(f.StopMode); err != nil {
			return err
		}
		r.filters = append(r.filters, excRule{mode: mode, classes: cs, stop: f.StopMode})
	}
	for _, o := range options {
		cs, err := resolve(o.Classes)
		if err != nil {
			return err
		}
		mode := o.Mode
		switch mode {
		case "always", "unhandled", "never":
		case "userUnhandled":
			mode = "unhandled"
		default:
			return fmt.Errorf("unknown break mode %q (want always, unhandled, userUnhandled or never)", o.Mode)
		}
		r.options = append(r.options, excRule{mode: mode, classes: cs})
	}
	s.mu.Lock()
	s.excRules = r
	s.excUnc, s.excAll = false, false
	s.mu.Unlock()
	return nil
}

// ParseClassList splits a filter condition: class names separated by
// commas or spaces ("ChannelClosedException, MyError").
func ParseClassList(cond string) []string {
	return strings.FieldsFunc(cond, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}
