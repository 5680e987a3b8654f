package main

import "runtime/debug"

// version is sqsq's version, set when linking: build/dist.sh passes
// -ldflags "-X main.version=$(git describe --always --dirty)". Left empty
// (go build, go run), the version the go command stamped from the clone's
// VCS state is used, else "dev".
var version string

// sqsqVersion is the version that -version prints and GET /_sqsq/health
// answers.
func sqsqVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
