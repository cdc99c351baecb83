package dap

import (
	"reflect"
	"sort"
	"strings"
)

// LaunchArgumentNames returns the names of the arguments the launch
// request accepts, sorted. Editor integrations describe exactly these
// (editors/vscode/package.json lists them as configurationAttributes, and
// a test checks the two lists against each other).
func LaunchArgumentNames() []string {
	t := reflect.TypeOf(launchArgs{})
	names := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}
