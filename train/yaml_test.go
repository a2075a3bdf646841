package train

import (
	"strings"
	"testing"

	"github.com/palace-chess/palace/internal/yamlconf"
	"github.com/palace-chess/palace/nn/gnet"
)

// A train section decodes over the Config it lands on; a schedule, when
// given, is the whole schedule; unknown keys are errors with their line.
func TestConfigYAML(t *testing.T) {
	c := DefaultConfig()
	err := yamlconf.Decode([]byte("batch: 64\nschedule: {kind: cosine, rate: 0.1, steps: 50}\nwindow: {max_rows: 20000}\nmask_illegal: false\n"), &c, SectionNames)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.Batch, want.MaxRows, want.MaskIllegal = 64, 20000, false
	want.Schedule = gnet.Schedule{Kind: gnet.Cosine, Rate: 0.1, Steps: 50} // no warm-up: not the default's
	if c != want {
		t.Errorf("decoded %+v, want %+v", c, want)
	}
	c = DefaultConfig()
	if err := yamlconf.Decode([]byte("schedule: ~\nwindow: ~\n"), &c, SectionNames); err != nil || c != DefaultConfig() {
		t.Errorf("empty sections: %+v, %v; want the defaults", c, err)
	}
	err = yamlconf.Decode([]byte("batch: 64\nwindow: {min_rowz: 3}\nbogus: 1\n"), &c, SectionNames)
	if err == nil || err.Error() != "line 2: unknown key min_rowz in window; line 3: unknown key bogus in train" {
		t.Errorf("unknown keys: %v", err)
	}
	if err := yamlconf.Decode([]byte("schedule: {kind: constant, rate: 1, bogus: 2}\n"), &c, SectionNames); err == nil || !strings.Contains(err.Error(), "line 1: unknown key bogus") {
		t.Errorf("an unknown schedule key: %v", err)
	}
}
