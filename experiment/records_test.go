package experiment

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/palace-chess/palace/rules"
)

// A record file's header line as palace wrote it when Header spelled out
// its format, version, code version and start time: it reads back and is
// written byte for byte.
func TestHeaderJSON(t *testing.T) {
	type oldHeader struct {
		Format       string         `json:"format"`
		Version      int            `json:"version"`
		A            *rules.RuleSet `json:"a"`
		B            *rules.RuleSet `json:"b"`
		Player       string         `json:"player"`
		OpeningPlies int            `json:"opening_plies"`
		Seed         uint64         `json:"seed"`
		CodeVersion  string         `json:"code_version,omitempty"`
		Started      time.Time      `json:"started"`
	}
	started := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for _, old := range []oldHeader{
		{Format: RecordsFormat, Version: RecordsVersion, A: rules.MustPreset("janggi"), B: rules.MustPreset("janggiclassic"),
			Player: "p", OpeningPlies: 4, Seed: 7, CodeVersion: "v1", Started: started},
		{Format: RecordsFormat, Version: RecordsVersion, A: rules.MustPreset("xiangqi"), B: rules.MustPreset("xiangqi"),
			Player: "q", Started: started},
	} {
		line, err := json.Marshal(old)
		if err != nil {
			t.Fatal(err)
		}
		var h Header
		if err := json.Unmarshal(line, &h); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, line) {
			t.Errorf("written as\n%s\nwant\n%s", out, line)
		}
	}
}
