package main

import (
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
)

// The gate in generation 0's row is candidate 1's, and the table says so,
// as the log and the charts number it (issue 50: labelled as row 0 only).
func TestReportTableNamesTheCandidate(t *testing.T) {
	rows := reportRows([]loop.Metric{
		{Generation: 0, Stage: loop.StageSelfplay},
		{Generation: 0, Stage: loop.StageTrain},
		{Generation: 0, Stage: loop.StageGate, Match: &arena.Summary{Games: 20}, Promoted: true},
		{Generation: 1, Stage: loop.StageSelfplay},
	})
	var b strings.Builder
	if err := writeReportTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], "gate of") {
		t.Fatalf("table:\n%s", b.String())
	}
	if f := strings.Fields(lines[1]); len(f) < 11 || f[0] != "0" || !strings.Contains(lines[1], " gen 1 ") || !strings.HasSuffix(strings.TrimSpace(lines[1]), "yes") {
		t.Errorf("generation 0's row does not name the gate of candidate 1:\n%s", b.String())
	}
	if strings.Contains(lines[2], "gen ") {
		t.Errorf("a generation without a gate names one:\n%s", b.String())
	}
}

// A run whose self-play resigned has a column for it; one that never
// resigned has none.
func TestReportTableResignations(t *testing.T) {
	for _, resign := range []bool{false, true} {
		m := loop.Metric{Generation: 0, Stage: loop.StageSelfplay, Games: 64}
		if resign {
			m.Resigns = loop.Resignations{Resigned: 51, Would: 6, False: 1}
		}
		var b strings.Builder
		if err := writeReportTable(&b, reportRows([]loop.Metric{m, {Generation: 1, Stage: loop.StageSelfplay, Games: 64}})); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(b.String(), "\n")
		if got := strings.Contains(lines[0], "resigned") && strings.Contains(lines[1], " 51 (1/6) "); got != resign {
			t.Errorf("resigned %v, table:\n%s", resign, b.String())
		}
	}
}
