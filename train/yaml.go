package train

import "github.com/palace-chess/palace/nn/gnet"

// configKeys is Config without its UnmarshalYAML, so that decoding it does
// not recurse.
type configKeys Config

// configFile is a train section: Config's own keys, the schedule and the
// replay window.
type configFile struct {
	configKeys `yaml:",inline"`
	// Schedule, when given, replaces the whole schedule: which keys a
	// schedule has depends on its kind, so a cosine schedule does not
	// inherit the default's warm-up.
	Schedule *gnet.Schedule `yaml:"schedule"`
	Window   windowFile     `yaml:"window"`
}

type windowFile struct {
	MinRows   int     `yaml:"min_rows"`
	Exponent  float64 `yaml:"exponent"`
	Expansion float64 `yaml:"expansion"`
	MaxRows   int     `yaml:"max_rows"`
}

// SectionNames maps the Go types of a train section to their YAML names,
// for messages about unknown keys (configs that hold a train section add
// them to theirs).
var SectionNames = map[string]string{
	"train.configFile": "train",
	"train.windowFile": "window",
}

// UnmarshalYAML decodes a train section over c: keys left out keep c's
// values. It has yaml.v3's older form, which decodes with the caller's own
// decoder, so that unknown keys stay errors in a strict decode (a
// yaml.Node's Decode would not be strict).
func (c *Config) UnmarshalYAML(unmarshal func(any) error) error {
	f := configFile{configKeys: configKeys(*c),
		Window: windowFile{MinRows: c.MinRows, Exponent: c.WindowExponent, Expansion: c.WindowExpansion, MaxRows: c.MaxRows}}
	if err := unmarshal(&f); err != nil {
		return err
	}
	*c = Config(f.configKeys)
	if f.Schedule != nil {
		c.Schedule = *f.Schedule
	}
	c.MinRows, c.WindowExponent, c.WindowExpansion, c.MaxRows = f.Window.MinRows, f.Window.Exponent, f.Window.Expansion, f.Window.MaxRows
	return nil
}
