package inspect

import (
	"errors"

	"github.com/nlangdbg/nlangdbg/vm"
)

// evalInFrame compiles expr in the scope of frame depth of t and runs it
// on a scratch thread. Placeholder until the evaluator lands.
func (s *Session) evalInFrame(t *vm.Thread, depth int, expr string, allowCalls bool) (vm.Value, *vm.Type, error) {
	return vm.Value{}, nil, errors.New("evaluation not implemented yet")
}
