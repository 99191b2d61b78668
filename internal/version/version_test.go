package version

import (
	"runtime/debug"
	"testing"
)

// TestFormatVersion: a release build's stamp wins over the build
// information; without a stamp the module version and VCS settings are
// printed; without either, "(devel)" and "commit unknown".
func TestFormatVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "example.com/perfc", Version: "v0.0.0-20260101000000-abcdef123456"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abcdef1234567890"}, {Key: "vcs.time", Value: "2026-01-01T00:00:00Z"},
			{Key: "vcs.modified", Value: "true"}, {Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "arm64"}}}
	tests := []struct {
		name string
		st   stamp
		bi   *debug.BuildInfo
		want string
	}{
		{"stamped", stamp{"1.2.3", "0123456789abcdef", "2026-02-03T04:05:06Z"}, bi,
			"perfc 1.2.3 (module example.com/perfc)\ncommit 0123456789abcdef (2026-02-03T04:05:06Z)\ngo1.26.0 linux/arm64\n"},
		{"build information", stamp{}, bi,
			"perfc v0.0.0-20260101000000-abcdef123456 (module example.com/perfc)\ncommit abcdef1234567890 (2026-01-01T00:00:00Z) with local changes\ngo1.26.0 linux/arm64\n"},
		{"devel", stamp{}, &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "example.com/perfc"},
			Settings: []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}}},
			"perfc (devel) (module example.com/perfc)\ncommit unknown\ngo1.26.0 linux/amd64\n"},
	}
	for _, tt := range tests {
		if got := of(tt.st, tt.bi).String(); got != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
