package jsonlrec_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/experiment"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

// The record files' header lines as palace wrote them when each Header
// spelled out its format, version, code version and start time (before
// Kind and Stamp): they read back and are written byte for byte.
func TestHeadersJSON(t *testing.T) {
	type oldArena struct {
		Format      string      `json:"format"`
		Version     int         `json:"version"`
		RuleSet     string      `json:"rule_set"`
		A           string      `json:"a"`
		B           string      `json:"b"`
		Openings    int         `json:"openings"`
		OpeningsKey string      `json:"openings_key"`
		Pairs       int         `json:"pairs"`
		SPRT        *stats.SPRT `json:"sprt,omitempty"`
		Seed        uint64      `json:"seed"`
		CodeVersion string      `json:"code_version,omitempty"`
		Started     time.Time   `json:"started"`
	}
	type oldExperiment struct {
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
	for _, c := range []struct {
		old    any
		header func() any // a new, empty header
	}{
		{oldArena{Format: arena.RecordsFormat, Version: arena.RecordsVersion, RuleSet: "xiangqi@0123", A: "a", B: "b",
			Openings: 2, OpeningsKey: "k", Pairs: 4, SPRT: &stats.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}, Seed: 7,
			CodeVersion: "v1", Started: started}, func() any { return &arena.Header{} }},
		{oldArena{Format: arena.RecordsFormat, Version: arena.RecordsVersion, RuleSet: "janggi@4567", A: "a", B: "b", Pairs: 1,
			Started: started}, func() any { return &arena.Header{} }},
		{oldExperiment{Format: experiment.RecordsFormat, Version: experiment.RecordsVersion, A: rules.MustPreset("janggi"),
			B: rules.MustPreset("janggiclassic"), Player: "p", OpeningPlies: 4, Seed: 7, CodeVersion: "v1", Started: started},
			func() any { return &experiment.Header{} }},
		{oldExperiment{Format: experiment.RecordsFormat, Version: experiment.RecordsVersion, A: rules.MustPreset("xiangqi"),
			B: rules.MustPreset("xiangqi"), Player: "q", Started: started}, func() any { return &experiment.Header{} }},
	} {
		line, err := json.Marshal(c.old)
		if err != nil {
			t.Fatal(err)
		}
		h := c.header()
		if err := json.Unmarshal(line, h); err != nil {
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
