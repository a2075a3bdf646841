// Package configs holds palace's example configurations, commented, and
// builds them into the binary, so that palace run works with no files.
package configs

import "embed"

// FS holds every YAML file of this directory.
//
//go:embed *.yaml
var FS embed.FS
