package dap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestLaunchArgumentNames checks the names against the launch request's
// fields one by one, so that a field without a json tag cannot slip out.
func TestLaunchArgumentNames(t *testing.T) {
	got := LaunchArgumentNames()
	for _, want := range []string{"program", "args", "cwd", "stopOnEntry", "quota", "seed", "carriers", "noDebug"} {
		i := sort.SearchStrings(got, want)
		if i == len(got) || got[i] != want {
			t.Errorf("LaunchArgumentNames() = %v: %q missing", got, want)
		}
	}
	if !sort.StringsAreSorted(got) {
		t.Errorf("LaunchArgumentNames() = %v: not sorted", got)
	}
}

// TestVSCodeManifestLaunchAttributes checks the VS Code extension's
// launch configurationAttributes against the arguments the server
// accepts, both ways: each argument is described, and each described
// attribute is an argument.
func TestVSCodeManifestLaunchAttributes(t *testing.T) {
	path := filepath.Join("..", "editors", "vscode", "package.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Contributes struct {
			Debuggers []struct {
				Type                    string `json:"type"`
				ConfigurationAttributes struct {
					Launch struct {
						Properties map[string]json.RawMessage `json:"properties"`
					} `json:"launch"`
				} `json:"configurationAttributes"`
			} `json:"debuggers"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var props map[string]json.RawMessage
	for _, d := range manifest.Contributes.Debuggers {
		if d.Type == "nlang" {
			props = d.ConfigurationAttributes.Launch.Properties
		}
	}
	if props == nil {
		t.Fatalf("%s: no debugger of type nlang with launch properties", path)
	}
	server := map[string]bool{}
	for _, name := range LaunchArgumentNames() {
		server[name] = true
		if _, ok := props[name]; !ok {
			t.Errorf("the launch request accepts %q, but %s does not describe it: add it to contributes.debuggers[nlang].configurationAttributes.launch.properties", name, path)
		}
	}
	for name := range props {
		if !server[name] {
			t.Errorf("%s describes the launch attribute %q, which the server does not accept (launchArgs in dap/launch.go)", path, name)
		}
	}
}
