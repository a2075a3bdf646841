// Package yamlconf decodes palace's YAML configuration files strictly: an
// unknown key is an error that names its line and its section, never the Go
// type behind the section.
package yamlconf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

var unknownField = regexp.MustCompile(`field (\S+) not found in type (\S+)`)

// Decode decodes data into dst, refusing unknown keys; an empty document
// leaves dst as it is. sections maps the Go types of dst's sections
// ("mcts.Params") to their YAML names ("search") for messages.
func Decode(data []byte, dst any, sections map[string]string) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(dst)
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		m = unknownField.ReplaceAllString(m, "unknown key $1 in $2")
		for typ, name := range sections {
			m = strings.ReplaceAll(m, typ, name)
		}
		msgs[i] = m
	}
	return errors.New(strings.Join(msgs, "; "))
}

// Load reads the configuration file at path and parses it with parse,
// which names path in its messages; a file it cannot read is an error
// prefixed pkg, the package whose configuration it is ("loop: open …").
func Load[T any](pkg, path string, parse func(data []byte, source string) (T, error)) (T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", pkg, err)
	}
	return parse(data, path)
}

// Required is a key a file must give: its name, with a hint of what it
// takes, and whether the file gave it.
type Required struct {
	Name  string
	Given bool
}

// Missing is the error that names every required key not given
// ("missing a; b"), so that a file is mended in one go; nil when all are.
func Missing(keys ...Required) error {
	var missing []string
	for _, k := range keys {
		if !k.Given {
			missing = append(missing, k.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return errors.New("missing " + strings.Join(missing, "; "))
}

// Section is a section decoded over the value it holds, as a plain field
// would be, that also records whether the file had it: for sections that
// conflict with other keys. It has yaml.v3's older Unmarshaler form, which
// decodes with the caller's own decoder, so that unknown keys in it stay
// errors (a yaml.Node's Decode would not be strict).
type Section[T any] struct {
	Value T
	Given bool
}

// UnmarshalYAML decodes the section over s.Value.
func (s *Section[T]) UnmarshalYAML(unmarshal func(any) error) error {
	s.Given = true
	return unmarshal(&s.Value)
}
