package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/internal/chart"
	"github.com/palace-chess/palace/rules"
)

// Report says what a report needs beyond the records: how the games were
// searched and where the records are.
type Report struct {
	// Search describes the player's search (budget, noise), as the
	// command says it.
	Search string
	// Training, when the players were trained for the experiment (palace
	// experiment --train), says how: from what, under which config, for
	// how much of the loop's time.
	Training string
	// Records is the record file the report is of.
	Records     string
	CodeVersion string
}

// Files a report writes in its directory.
const (
	ReportMarkdown = "report.md"
	ReportJSON     = "analysis.json"
	ReportOutcomes = "outcomes.png"
	ReportEnds     = "ends.png"
)

// IsReportFile tells whether name is one of the files a report writes:
// the only files a report directory may already hold.
func IsReportFile(name string) bool {
	switch name {
	case ReportMarkdown, ReportJSON, ReportOutcomes, ReportEnds:
		return true
	}
	return false
}

// WriteReport writes the experiment's report into dir, each file
// crash-safely: report.md (the rule sets side by side, the table of
// measures with intervals and tests, and a methods paragraph naming the
// rule sets with their hashes, the player, the search, the games, the
// pairing and the tests), analysis.json, and two charts with 95%
// intervals (outcomes.png, ends.png). It returns the files written.
func WriteReport(dir string, h Header, an Analysis, r Report) ([]string, error) {
	a, b, err := h.RuleSets()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("experiment: report: %w", err)
	}
	var written []string
	md := reportMarkdown(h, a, b, an, r)
	path := filepath.Join(dir, ReportMarkdown)
	if err := atomicfile.WriteBytes(path, 0o644, []byte(md)); err != nil {
		return written, fmt.Errorf("experiment: report: %w", err)
	}
	written = append(written, path)
	data, err := json.MarshalIndent(struct {
		Analysis
		RulesA  *rules.RuleSet `json:"rules_a"`
		RulesB  *rules.RuleSet `json:"rules_b"`
		Search  string         `json:"search"`
		Records string         `json:"records"`
		Code    string         `json:"code_version"`
	}{an, a, b, r.Search, r.Records, r.CodeVersion}, "", "  ")
	if err != nil {
		return written, fmt.Errorf("experiment: report: %w", err)
	}
	path = filepath.Join(dir, ReportJSON)
	if err := atomicfile.WriteBytes(path, 0o644, append(data, '\n')); err != nil {
		return written, fmt.Errorf("experiment: report: %w", err)
	}
	written = append(written, path)
	if an.Pairs == 0 {
		return written, nil // no chart of nothing
	}
	charts := []struct {
		file string
		bars chart.Bars
	}{
		{ReportOutcomes, chart.Bars{Title: "Outcomes under A and B (95% Wilson intervals)", XLabel: "share of games (%)", Bars: []chart.Bar{
			pctBar(an.FirstMover+" wins, A", an.A.Wins), pctBar(an.FirstMover+" wins, B", an.B.Wins),
			pctBar("draws, A", an.A.Draws), pctBar("draws, B", an.B.Draws),
			pctBar(an.SecondMover+" wins, A", an.A.Losses), pctBar(an.SecondMover+" wins, B", an.B.Losses),
		}}},
		{ReportEnds, chart.Bars{Title: "How games ended under A and B (95% Wilson intervals)", XLabel: "share of games (%)", Bars: endBars(an)}},
	}
	for _, c := range charts {
		path := filepath.Join(dir, c.file)
		if err := chart.WriteBars(path, c.bars); err != nil {
			return written, fmt.Errorf("experiment: report: %s: %w", c.file, err)
		}
		written = append(written, path)
	}
	return written, nil
}

func pctBar(label string, r Rate) chart.Bar {
	if r.N == 0 {
		return chart.Bar{Label: label, Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	return chart.Bar{Label: label, Value: 100 * float64(r.Rate), Lo: 100 * float64(r.Lo), Hi: 100 * float64(r.Hi)}
}

func endBars(an Analysis) []chart.Bar {
	labels := make([]string, 0, len(an.A.Reasons))
	for k := range an.A.Reasons {
		labels = append(labels, k)
	}
	sort.Strings(labels)
	var out []chart.Bar
	for _, k := range labels {
		out = append(out, pctBar(k+", A", an.A.Reasons[k]), pctBar(k+", B", an.B.Reasons[k]))
	}
	return out
}

// reportMarkdown is report.md.
func reportMarkdown(h Header, a, b *rules.RuleSet, an Analysis, r Report) string {
	var s strings.Builder
	fmt.Fprintf(&s, "# Rule experiment: %s against %s\n\n", a.Name, b.Name)
	fmt.Fprintf(&s, "Records: `%s`; %d pairs of games", r.Records, an.Pairs)
	if an.Unpaired > 0 {
		fmt.Fprintf(&s, " (%s without its pair left out)", plural(an.Unpaired, "game"))
	}
	fmt.Fprintf(&s, "; palace %s.\n\n", r.CodeVersion)

	s.WriteString("## The rule sets\n\n| switch | A: `" + a.String() + "` | B: `" + b.String() + "` |\n|---|---|---|\n")
	for _, sw := range Switches(a, b) {
		mark := ""
		if sw[1] != sw[2] {
			mark = "**"
		}
		fmt.Fprintf(&s, "| %s%s%s | %s | %s |\n", mark, sw[0], mark, sw[1], sw[2])
	}

	s.WriteString("\n## Outcomes\n\n")
	if an.Pairs == 0 {
		s.WriteString("No game has been played under both rule sets yet.\n")
	} else {
		s.WriteString("| measure | A | B | B − A [95%] | p | exact p | |\n|---|---|---|---|---|---|---|\n")
		for _, row := range an.rows() {
			mark := ""
			if row.d.Significant {
				mark = "significant"
			}
			fmt.Fprintf(&s, "| %s | %s | %s | %s | %s | %s | %s |\n", row.label, row.a, row.b, row.diff, fmtP(row.d.P), fmtP(row.d.ExactP), mark)
		}
		fmt.Fprintf(&s, "\n![outcomes](%s) ![ends](%s)\n", ReportOutcomes, ReportEnds)
	}

	s.WriteString("\n## Methods\n\n")
	fmt.Fprintf(&s, "We compared two rule sets of %s: A, `%s`, and B, `%s` (palace's names and hashes; every switch of each is listed above). ",
		an.Game, a.String(), b.String())
	if an.PlayerB != "" {
		fmt.Fprintf(&s, "Each of %d game indices was played once under A, by %s on both sides, and once under B, by %s on both sides: a player per rule set (self-play; %s). ",
			an.Pairs, an.Player, an.PlayerB, r.Search)
		if r.Training != "" {
			fmt.Fprintf(&s, "The two players were %s. ", r.Training)
		}
	} else {
		fmt.Fprintf(&s, "Each of %d game indices was played once under A and once under B by the same player, %s, on both sides (self-play; %s). ",
			an.Pairs, an.Player, r.Search)
	}
	if an.OpeningPlies > 0 {
		fmt.Fprintf(&s, "Game i under A and game i under B started from the same opening, %d random plies drawn from seed %d and game i, and searched with the same seed. ", an.OpeningPlies, an.Seed)
	} else {
		fmt.Fprintf(&s, "Game i under A and game i under B started from the same position and were searched with the same seed (seed %d). ", an.Seed)
	}
	s.WriteString("Each statistic is reported under A and B with a 95% interval (shares: Wilson, the score counting a draw as half a point; means: Student's t), " +
		"and its difference B − A as the mean of the per-pair differences with a 95% interval. " +
		"The score and the shares are tested by the paired z test and by an exact test (McNemar's for a share, the sign test for the score), and called significant when both give p < 0.05; " +
		"lengths and passes by the paired t test. Each statistic is tested on its own, with no correction for the number of statistics. ")
	fmt.Fprintf(&s, "The records (`%s`) hold every game with its opening, moves, result and how it ended, and palace replays each under its rule set: `palace experiment` with the same flags and `--report` writes this report again.\n", r.Records)
	return s.String()
}

// Switches are both rule sets' switches by their JSON names, sorted: the
// name, A's value and B's ("—" where one has none).
func Switches(a, b *rules.RuleSet) [][3]string {
	fields := func(rs *rules.RuleSet) map[string]any {
		m := map[string]any{}
		data, err := json.Marshal(rs)
		if err == nil {
			_ = json.Unmarshal(data, &m)
		}
		return m
	}
	fa, fb := fields(a), fields(b)
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	delete(keys, "id") // name@hash: the table's header
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([][3]string, 0, len(names))
	for _, k := range names {
		va, vb := "—", "—"
		if v, ok := fa[k]; ok {
			va = fmt.Sprint(v)
		}
		if v, ok := fb[k]; ok {
			vb = fmt.Sprint(v)
		}
		out = append(out, [3]string{k, va, vb})
	}
	return out
}

// WriteSensitivity compares experiments of the same rule sets at rising
// strengths (labels name them: budgets, say): each measure's B − A at
// each, and a flag where its sign or its significance changes from one
// to the next, since a conclusion that does not hold as the players get
// stronger is the rule's and the players' together. It returns how many
// measures it flagged.
func WriteSensitivity(w io.Writer, labels []string, ans []Analysis) (int, error) {
	if len(labels) != len(ans) {
		return 0, fmt.Errorf("experiment: %d labels for %d analyses", len(labels), len(ans))
	}
	var order []string
	at := map[string][]*row{}
	for k, an := range ans {
		for _, r := range an.rows() {
			if at[r.label] == nil {
				order = append(order, r.label)
				at[r.label] = make([]*row, len(ans))
			}
			r := r
			at[r.label][k] = &r
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| measure | %s | |\n|---|%s---|\n", strings.Join(labels, " | "), strings.Repeat("---|", len(labels)))
	flagged := 0
	for _, label := range order {
		rs := at[label]
		cells := make([]string, len(rs))
		changed := ""
		for k, r := range rs {
			if r == nil {
				cells[k] = "—"
				continue
			}
			cells[k] = r.diff
			if r.d.Significant {
				cells[k] += " (significant)"
			}
			if k > 0 && rs[k-1] != nil {
				prev := rs[k-1]
				switch {
				case sign(prev.d.Mean) != sign(r.d.Mean) && (prev.d.Significant || r.d.Significant):
					changed = "sign changes"
				case prev.d.Significant != r.d.Significant && changed == "":
					changed = "significance changes"
				}
			}
		}
		if changed != "" {
			flagged++
			changed = "**" + changed + "**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", label, strings.Join(cells, " | "), changed)
	}
	_, err := io.WriteString(w, b.String())
	return flagged, err
}

func sign(x Num) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
