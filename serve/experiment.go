package serve

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"

	"github.com/palace-chess/palace/experiment"
	"github.com/palace-chess/palace/rules"
)

// experimentPage is an experiment record's page: the two rule sets side
// by side (the switches that differ marked), each measure under A and B
// with the difference, and the analysis palace experiment prints.
type experimentPage struct {
	Name     string
	Analysis experiment.Analysis
	Switches []switchRow
	Measures []measureRow
	Text     string
	GamesURL string
}

type switchRow struct {
	Name    string
	A, B    string
	Differs bool
}

type measureRow struct {
	Name        string
	A, B        string
	Diff        string
	P           string
	Significant bool
}

func (s *Server) handleExperiment(w http.ResponseWriter, r *http.Request) {
	t, err := s.target(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	if t.isDir {
		s.fail(w, fmt.Errorf("serve: %s is a directory, not an experiment's record file", s.name(t)))
		return
	}
	h, recs, err := experiment.ReadRecords(t.path)
	if err != nil {
		s.fail(w, err)
		return
	}
	a, b, err := h.RuleSets()
	if err != nil {
		s.fail(w, err)
		return
	}
	an := experiment.Analyze(h, recs)
	p := experimentPage{Name: s.name(t), Analysis: an, GamesURL: link("games", t.root, t.rel)}
	for _, sw := range experiment.Switches(a, b) {
		p.Switches = append(p.Switches, switchRow{Name: sw[0], A: sw[1], B: sw[2], Differs: sw[1] != sw[2]})
	}
	rate := func(x experiment.Rate) string {
		return fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100*float64(x.Rate), 100*float64(x.Lo), 100*float64(x.Hi))
	}
	mean := func(x experiment.Mean) string {
		return fmt.Sprintf("%.1f [%.1f, %.1f]", float64(x.Mean), float64(x.Lo), float64(x.Hi))
	}
	diff := func(d experiment.Diff, scale float64, unit string) (string, string) {
		return fmt.Sprintf("%+.1f%s [%+.1f, %+.1f]", scale*float64(d.Mean), unit, scale*float64(d.Lo), scale*float64(d.Hi)),
			fmt.Sprintf("%.3g (%s); %s %.3g", float64(d.P), d.Test, d.Exact, float64(d.ExactP))
	}
	add := func(name, av, bv string, d experiment.Diff, scale float64, unit string) {
		ds, ps := diff(d, scale, unit)
		p.Measures = append(p.Measures, measureRow{Name: name, A: av, B: bv, Diff: ds, P: ps, Significant: d.Significant})
	}
	add(an.FirstMover+"'s score", rate(an.A.Score), rate(an.B.Score), an.Diff.Score, 100, " pts")
	add(an.FirstMover+"'s wins", rate(an.A.Wins), rate(an.B.Wins), an.Diff.Wins, 100, " pts")
	add("draws", rate(an.A.Draws), rate(an.B.Draws), an.Diff.Draws, 100, " pts")
	add(an.SecondMover+"'s wins", rate(an.A.Losses), rate(an.B.Losses), an.Diff.Losses, 100, " pts")
	add("length (plies)", mean(an.A.Length), mean(an.B.Length), an.Diff.Length, 1, "")
	if an.Game == rules.Janggi.String() {
		add("passes", mean(an.A.Passes), mean(an.B.Passes), an.Diff.Passes, 1, "")
	}
	var reasons []string
	for k := range an.Diff.Reasons {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		add("ended by "+k, rate(an.A.Reasons[k]), rate(an.B.Reasons[k]), an.Diff.Reasons[k], 100, " pts")
	}
	var text bytes.Buffer
	if err := an.WriteText(&text); err != nil {
		s.fail(w, err)
		return
	}
	p.Text = text.String()
	s.render(w, http.StatusOK, "experiment.html", page{Title: "Experiment " + p.Name, Crumbs: s.crumbs(t), Data: p})
}
