// Package buildinfo reports what the running binary was built from: the
// module version, the commit and the Go version, for "taskd version",
// /healthz and the taskd_build_info metric.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Info describes a build.
type Info struct {
	// Version is the module version: a tag, a pseudo-version, or
	// "(devel)" when the build had no version control information.
	Version string `json:"version"`
	// Commit is the VCS revision, with "+dirty" when the tree had
	// uncommitted changes; "unknown" when the build did not record one
	// (go run and go test do not).
	Commit string `json:"commit"`
	// CommitTime is the commit's time (RFC 3339), when recorded.
	CommitTime string `json:"commit_time,omitempty"`
	// GoVersion is the Go toolchain that built the binary.
	GoVersion string `json:"go"`
}

// Read returns the running binary's build information.
func Read() Info {
	in := Info{Version: "(devel)", Commit: "unknown", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return in
	}
	if bi.Main.Version != "" {
		in.Version = bi.Main.Version
	}
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Commit = s.Value
		case "vcs.time":
			in.CommitTime = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && in.Commit != "unknown" {
		in.Commit += "+dirty"
	}
	return in
}

// String is the one line "taskd version" prints.
func (in Info) String() string {
	s := "taskd " + in.Version + " (commit " + in.Commit
	if in.CommitTime != "" {
		s += ", " + in.CommitTime
	}
	return s + ") built with " + in.GoVersion
}
