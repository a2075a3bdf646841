// Package nets holds the networks that ship inside palace: the strongest
// xiangqi and janggi networks made so far (README.md says how each was
// made and how strong it is). Commands play them when no network is
// given (model.Builtin); the files are ordinary checkpoints, which
// `palace net info nets/xiangqi.palnet` describes.
package nets

import _ "embed"

var (
	//go:embed xiangqi.palnet
	xiangqi []byte
	//go:embed janggi.palnet
	janggi []byte
)

// For returns the built-in network of a game ("xiangqi" or "janggi", as
// rules.Game names them): its file name under nets/ and its bytes (not
// to be modified), or ok false for another name.
func For(game string) (name string, data []byte, ok bool) {
	switch game {
	case "xiangqi":
		return "nets/xiangqi.palnet", xiangqi, true
	case "janggi":
		return "nets/janggi.palnet", janggi, true
	}
	return "", nil, false
}
