package main

import (
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/selfplay"
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
			m.Resigns = selfplay.Resignations{Resigned: 51, Would: 6, False: 1}
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

// The time line gives each stage's share of the run's time and what it
// made.
func TestReportStageTimes(t *testing.T) {
	var b strings.Builder
	writeStageTimes(&b, []loop.Metric{
		{Generation: 0, Stage: loop.StageSelfplay, Seconds: 60, Games: 64, Positions: 7000},
		{Generation: 0, Stage: loop.StageTrain, Seconds: 20, TotalSteps: 100},
		{Generation: 1, Stage: loop.StageSelfplay, Seconds: 15, Games: 64, Positions: 6000},
		{Generation: 1, Stage: loop.StageTrain, Seconds: 5, TotalSteps: 210},
	})
	want := "time: self-play 75 s (75.0%), training 25 s (25.0%); 128 games, 13000 positions, 210 training steps\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	writeStageTimes(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no metrics: %q", b.String())
	}
}
