// Package yamlconf decodes palace's YAML configuration files strictly: an
// unknown key is an error that names its line and its section, never the Go
// type behind the section.
package yamlconf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
	"gopkg.in/yaml.v3"
)

var unknownField = regexp.MustCompile(`field (\S+) not found in type (\S+)`)

// Decode decodes data into dst, refusing unknown keys, numbers in float
// form where a whole number is wanted (yaml.v3 would truncate `games: 4.5`
// to 4, and takes `seed: 5.0` as 5) and the non-numbers .nan and .inf
// (which pass every range check); an empty document leaves dst as it is. sections maps the
// Go types of dst's sections ("mcts.Params") to their YAML names
// ("search") for messages.
func Decode(data []byte, dst any, sections map[string]string) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(dst)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
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
	return checkNumbers(data, dst)
}

// fractionProbe stands in for a number with a fraction in a second decode:
// a float, but too large for any integer type, so that yaml.v3 refuses it
// exactly where the field is an integer and names the line.
const fractionProbe = "1e30"

var probeRefused = regexp.MustCompile(`^line (\d+): cannot unmarshal !!float ` + "`" + fractionProbe + "`" + ` into `)

// checkNumbers reports the numbers of data (decoded into dst already)
// that are .nan or .inf, or that are in float form and land in an integer
// field; the second kind is found by decoding again, into a fresh value of
// dst's type, with every such number replaced by fractionProbe.
func checkNumbers(data []byte, dst any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	var msgs []string
	// line → "key: value: problem" of each number an integer field must
	// not take: a fraction, or one too large for a float to hold exactly
	// (yaml.v3 reads 18446744073709551616 as a float, then wraps it).
	fractions := map[int][]string{}
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, key)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], n.Content[i].Value)
			}
		case yaml.ScalarNode:
			if n.ShortTag() != "!!float" {
				return
			}
			v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
			switch {
			case err != nil || math.IsInf(v, 0) || math.IsNaN(v):
				// .nan, .inf and their spellings: ParseFloat reads none of them.
				msgs = append(msgs, fmt.Sprintf("line %d: %s: %s is not a number palace can use", n.Line, key, n.Value))
			case v != math.Trunc(v):
				fractions[n.Line] = append(fractions[n.Line], key+": "+n.Value+": want a whole number")
				n.Value = fractionProbe
			case math.Abs(v) >= 1<<53:
				fractions[n.Line] = append(fractions[n.Line], key+": "+n.Value+": too large a whole number to read exactly")
				n.Value = fractionProbe
			default:
				// A whole number in float form (seed: 5.0, generations: 1e1)
				// is an integer field's only when written as one: a float
				// there is more often a key given the wrong value than a
				// spelling (issue 47).
				fractions[n.Line] = append(fractions[n.Line], fmt.Sprintf("%s: %s: want a whole number written as one (%s)",
					key, n.Value, strconv.FormatFloat(v, 'f', -1, 64)))
				n.Value = fractionProbe
			}
		}
	}
	walk(&doc, "")
	if len(fractions) > 0 {
		probe := reflect.New(reflect.TypeOf(dst).Elem()).Interface()
		var te *yaml.TypeError
		if err := doc.Decode(probe); errors.As(err, &te) {
			for _, m := range te.Errors {
				if sm := probeRefused.FindStringSubmatch(m); sm != nil {
					line, _ := strconv.Atoi(sm[1])
					for _, kv := range fractions[line] {
						msgs = append(msgs, fmt.Sprintf("line %d: %s", line, kv))
					}
					delete(fractions, line)
				}
			}
		}
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

// Load reads the configuration file at path and parses it with parse,
// which names path in its messages; a file it cannot read is an error
// prefixed pkg, the package whose configuration it is ("loop: open …").
func Load[T any](pkg, path string, parse func(data []byte, source string) (T, error)) (T, error) {
	data, err := atomicfile.ReadFile(path, atomicfile.MaxConfigBytes)
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
