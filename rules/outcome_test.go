package rules

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutcomeCorpus replays every reference sequence: no proper prefix ends
// the game, and the final position has the reference result with claims
// (column 4), without claims (5), the reason (6), the FEN (7) and check (8).
func TestOutcomeCorpus(t *testing.T) {
	for _, variant := range []string{"xiangqi", "janggi", "janggitraditional", "janggimodern", "janggicasual"} {
		t.Run(variant, func(t *testing.T) {
			name := filepath.Join("..", "testdata", "outcomes", variant+"-public.tsv")
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			lines := 0
			for ln := 1; sc.Scan(); ln++ {
				cols := strings.Split(sc.Text(), "\t")
				if len(cols) != 8 {
					t.Fatalf("%s:%d: %d columns, want 8", name, ln, len(cols))
				}
				lines++
				g, err := NewGame(MustPreset(cols[0]), cols[1])
				if err != nil {
					t.Fatalf("%s:%d: %v", name, ln, err)
				}
				moves := strings.Fields(cols[2])
				for i, mv := range moves {
					if r := g.Result(); r.Over() {
						t.Errorf("%s:%d: game over (%s) before move %d of %d", name, ln, r, i+1, len(moves))
						break
					}
					if _, err := g.PlayText(mv, Ranks1); err != nil {
						t.Fatalf("%s:%d: move %d: %v", name, ln, i+1, err)
					}
				}
				r := g.Result()
				if r.Score() != cols[3] || r.Reason.String() != cols[5] {
					t.Errorf("%s:%d: result %s %s, want %s %s", name, ln, r.Score(), r.Reason, cols[3], cols[5])
				}
				if got := g.ImmediateResult().Score(); got != cols[4] {
					t.Errorf("%s:%d: result without claims %s, want %s", name, ln, got, cols[4])
				}
				if got := g.Position().FEN(); got != cols[6] {
					t.Errorf("%s:%d: final FEN %s, want %s", name, ln, got, cols[6])
				}
				if got := b2i(g.Position().InCheck()); got != int(cols[7][0]-'0') {
					t.Errorf("%s:%d: in check %d, want %s", name, ln, got, cols[7])
				}
			}
			if lines == 0 {
				t.Fatal("no lines")
			}
		})
	}
}
